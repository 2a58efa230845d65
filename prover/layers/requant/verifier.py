"""Requant verifier: the mirror of prove_requant, every check named as in
docs/layers/requant.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.requant.params import RequantParams, entry_vars, params_of
from cairn.prover.layers.requant.proof import RequantColumns, RequantProof
from cairn.prover.layers.requant.relations import (
    BALANCED,
    STACKS,
    TABLE,
    TAG,
    WITNESS,
    Relations,
    input_value,
    instance_vars,
    opening_claims,
    witness_layout,
)
from cairn.prover.lookups.verifier import LeafClaim, check_balance, verify_logup
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.stack import check_stacks
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def check_commitments(
    n: int, p: RequantParams, witness: Mapping[str, Commitment]
) -> list[Commitment]:
    """`requant.commitment` unless the witness is exactly the layout's stacks, one hash."""
    return check_stacks(STACKS, witness_layout(n, p), witness)


def verify_columns(
    rel: Relations, p: RequantParams, leaves: Sequence[LeafClaim], cols: RequantColumns
) -> list[tuple[QM31, ...]]:
    """`logup.numerator` and `requant.columns`: the four leaves (instances in `Relations`'
    order) against the sent columns and the tables' closed forms; returns the leaf points."""
    numerators = [QM31.one()] * len(WITNESS) + [cols.m_range, cols.m_clamp]
    for leaf, want in zip(leaves, numerators, strict=True):
        if leaf.numerator != want:
            raise VerificationError("logup.numerator", "a leaf numerator is not 1 or m~")
    points = [leaf.point for leaf in leaves]
    keys = [
        *rel.witness_keys_at(p, points[0], cols),
        *rel.table_keys_at(p, [points[t] for t in TABLE]),
    ]
    for leaf, key in zip(leaves, keys, strict=True):
        if leaf.denominator != key:
            raise VerificationError("requant.columns", "a leaf denominator is not its key")
    return points


def verify_requant(
    st: Statement, proof: RequantProof, outputs: dict[str, Claim], parent: Channel
) -> LayerClaims:
    p, n = params_of(st), entry_vars(st)
    y_claim = outputs["y"]
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    channel.mix_felts([*y_claim.point, y_claim.value])

    rel = Relations.draw(channel)
    leaves = verify_logup(instance_vars(n, p), proof.logup, channel)
    check_balance(proof.logup, BALANCED)
    points = verify_columns(rel, p, leaves, proof.columns)
    channel.mix_felts(proof.columns.values())

    witness = opening_claims(n, p, points, proof.columns, y_claim)
    x_value = input_value(p, proof.columns)
    join(parent, channel)  # type: ignore[arg-type]
    parent.mix_felts([*points[1], x_value])
    return LayerClaims({"x": [Claim(tuple(points[1]), x_value)]}, {}, witness)
