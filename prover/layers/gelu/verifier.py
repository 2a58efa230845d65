"""Gelu verifier: the mirror of prove_gelu, every check named as in docs/layers/gelu.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.gelu.params import GeluParams, entry_vars, params_of
from cairn.prover.layers.gelu.proof import GeluProof
from cairn.prover.layers.gelu.relations import (
    BALANCED,
    STACKS,
    TABLE,
    TAG,
    WITNESS,
    Lookup,
    instance_vars,
    opening_claims,
    witness_layout,
)
from cairn.prover.lookups.verifier import LeafClaim, check_balance, verify_logup
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.stack import check_stacks
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def check_commitments(n: int, p: GeluParams, witness: Mapping[str, Commitment]) -> list[Commitment]:
    """`gelu.commitment` unless the witness is exactly the layout's stacks, one hash."""
    return check_stacks(STACKS, witness_layout(n, p), witness)


def verify_columns(
    rel: Lookup, p: GeluParams, leaves: Sequence[LeafClaim], proof: GeluProof
) -> list[tuple[QM31, ...]]:
    """`logup.numerator` and `gelu.columns`: both leaves against the sent columns and the
    table's MLE; returns the leaf points."""
    cols = proof.columns
    witness, table = leaves[WITNESS], leaves[TABLE]
    if witness.numerator != QM31.one() or table.numerator != cols.m:
        raise VerificationError("logup.numerator", "a leaf numerator is not 1 or m~")
    if witness.denominator != rel.witness_key_at(cols):
        raise VerificationError("gelu.columns", "the witness denominator is not key(x~, y~)")
    if table.denominator != rel.table_key_at(p, table.point, cols.t):
        raise VerificationError("gelu.columns", "the table denominator is not key(i, T~)")
    return [leaf.point for leaf in leaves]


def verify_gelu(
    st: Statement, proof: GeluProof, outputs: dict[str, Claim], parent: Channel
) -> LayerClaims:
    p, n = params_of(st), entry_vars(st)
    y_claim = outputs["y"]
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    channel.mix_felts([*y_claim.point, y_claim.value])

    rel = Lookup.draw(channel)
    leaves = verify_logup(instance_vars(n, p), proof.logup, channel)
    check_balance(proof.logup, BALANCED)
    points = verify_columns(rel, p, leaves, proof)
    channel.mix_felts(proof.columns.values())

    witness = opening_claims(n, p, points, proof.columns, y_claim)
    join(parent, channel)  # type: ignore[arg-type]
    parent.mix_felts([*points[WITNESS], proof.columns.x])
    return LayerClaims({"x": [Claim(tuple(points[WITNESS]), proof.columns.x)]}, {}, witness)
