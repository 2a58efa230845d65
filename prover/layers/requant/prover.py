"""Requant prover: commit the witness before any challenge, then on a Blake2s fork of the
walk's channel prove RANGE and CLAMP with one LogUp-GKR, send the columns at its point, and
hand the walk a claim on x and the claims on the stack, which the walk's witness opening
settles (docs/layers/requant.md, "Protocol")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.requant.model import (
    RequantTrace,
    multiplicities,
    trace,
)
from cairn.prover.layers.requant.params import (
    RequantParams,
    entry_vars,
    params_of,
)
from cairn.prover.layers.requant.proof import RequantColumns, RequantProof
from cairn.prover.layers.requant.relations import (
    ENTRY_COLUMNS,
    STACKS,
    TAG,
    Relations,
    input_value,
    opening_claims,
    witness_layout,
)
from cairn.prover.lookups.prover import Fractions, prove_logup
from cairn.prover.mle import eq_table, evaluate, row_combination
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.pcs.stack import commit_stacks
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class RequantAdvice:
    """What the prover keeps of its witness: the trace and the multiplicities."""

    trace: RequantTrace
    counts: tuple[np.ndarray, np.ndarray]


def advise_requant(
    st: Statement, pcs: PcsParams
) -> tuple[dict[str, CommitmentData], RequantAdvice]:
    """Commit r0, r1, y', y and the multiplicities, stacked, before the walk draws anything."""
    p = params_of(st)
    t = trace(st.inputs["x"], p)
    counts = multiplicities(t, p)
    layout = witness_layout(entry_vars(st), p)
    columns = t.columns() | {"m_range": counts[0], "m_clamp": counts[1]}
    return commit_stacks(STACKS, layout, columns, pcs), RequantAdvice(t, counts)


def fractions(
    rel: Relations, p: RequantParams, t: RequantTrace, counts: tuple[np.ndarray, np.ndarray]
) -> list[Fractions]:
    """The four LogUp instances, in `Relations`' order: RANGE and CLAMP witness, then tables."""
    range_w, clamp_w = rel.witness_denominators(p, t.columns())
    range_t, clamp_t = rel.table_denominators(p)
    return [
        Fractions(None, range_w),
        Fractions(None, clamp_w),
        Fractions(QM31Array.from_signed(counts[0]), range_t),
        Fractions(QM31Array.from_signed(counts[1]), clamp_t),
    ]


def columns_at(
    t: RequantTrace, counts: tuple[np.ndarray, np.ndarray], points: Sequence[Sequence[QM31]]
) -> RequantColumns:
    """r0, r1, y', y at the CLAMP witness point ρ, each multiplicity at its table's point."""
    cols = t.columns()
    entries = np.stack([cols[c].ravel() for c in ENTRY_COLUMNS], axis=1)
    at_rho = row_combination(eq_table(points[1]), embed(entries)).to_list()
    return RequantColumns(
        *at_rho, evaluate(embed(counts[0]), points[2]), evaluate(embed(counts[1]), points[3])
    )


def prove_requant(
    st: Statement, outputs: dict[str, Claim], parent: Channel, advice: RequantAdvice
) -> tuple[RequantProof, LayerClaims]:
    p, n = params_of(st), entry_vars(st)
    y_claim = outputs["y"]
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    channel.mix_felts([*y_claim.point, y_claim.value])

    rel = Relations.draw(channel)
    logup, leaves = prove_logup(fractions(rel, p, advice.trace, advice.counts), channel)
    points = [leaf.point for leaf in leaves]
    columns = columns_at(advice.trace, advice.counts, points)
    channel.mix_felts(columns.values())

    witness = opening_claims(n, p, points, columns, y_claim)
    x_value = input_value(p, columns)
    join(parent, channel)  # type: ignore[arg-type]
    parent.mix_felts([*points[1], x_value])
    proof = RequantProof(logup, columns)
    return proof, LayerClaims({"x": [Claim(tuple(points[1]), x_value)]}, {}, witness)
