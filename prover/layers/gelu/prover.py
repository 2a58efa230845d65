"""Gelu prover: commit y and the multiplicities before any challenge, then on a Blake2s fork of
the walk's channel prove (x, y) ∈ GELU table with one LogUp-GKR, send the columns at its
points, and hand the walk a claim on x and the claims on the stack, which the walk's witness
opening settles (docs/layers/gelu.md, "Protocol")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.layers.gelu.model import lookup, multiplicities
from cairn.prover.layers.gelu.params import entry_vars, params_of
from cairn.prover.layers.gelu.proof import GeluColumns, GeluProof
from cairn.prover.layers.gelu.relations import (
    STACKS,
    TABLE,
    TAG,
    WITNESS,
    Lookup,
    opening_claims,
    witness_layout,
)
from cairn.prover.lookups.prover import Fractions, prove_logup
from cairn.prover.mle import eq_table, evaluate, pad_tensor, row_combination
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.pcs.stack import commit_stacks
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class GeluAdvice:
    """What the prover keeps of its witness: padded x and y, m."""

    x: np.ndarray
    y: np.ndarray
    m: np.ndarray


def advise_gelu(st: Statement, pcs: PcsParams) -> tuple[dict[str, CommitmentData], GeluAdvice]:
    """Commit y (the table applied to the padded x: T[0 + 2^(b_in−1)] = 0 on the padding) and
    the multiplicities, stacked, before the walk draws anything."""
    p = params_of(st)
    x = pad_tensor(st.inputs["x"]).ravel()
    y, m = lookup(x, p), multiplicities(x, p)
    layout = witness_layout(entry_vars(st), p)
    return commit_stacks(STACKS, layout, {"y": y, "m": m}, pcs), GeluAdvice(x, y, m)


def prove_gelu(
    st: Statement, outputs: dict[str, Claim], parent: Channel, advice: GeluAdvice
) -> tuple[GeluProof, LayerClaims]:
    p, n = params_of(st), entry_vars(st)
    y_claim = outputs["y"]
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    channel.mix_felts([*y_claim.point, y_claim.value])

    rel = Lookup.draw(channel)
    instances = [
        Fractions(None, rel.witness_denominators(advice.x, advice.y)),
        Fractions(QM31Array.from_signed(advice.m), rel.table_denominators(p)),
    ]
    logup, leaves = prove_logup(instances, channel)

    points = [leaf.point for leaf in leaves]
    entries = embed(np.stack([advice.x, advice.y], axis=1))
    x_value, y_value = row_combination(eq_table(points[WITNESS]), entries).to_list()
    at_table = points[TABLE]
    m_value, t_value = evaluate(embed(advice.m), at_table), evaluate(embed(p.table()), at_table)
    columns = GeluColumns(x_value, y_value, m_value, t_value)
    channel.mix_felts(columns.values())

    witness = opening_claims(n, p, points, columns, y_claim)
    join(parent, channel)  # type: ignore[arg-type]
    parent.mix_felts([*points[WITNESS], columns.x])
    proof = GeluProof(logup, columns)
    return proof, LayerClaims({"x": [Claim(tuple(points[WITNESS]), columns.x)]}, {}, witness)
