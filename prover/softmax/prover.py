"""Softmax prover: commit the witness (before any challenge), then on a Blake2s fork of the
walk's channel prove the lookups and the recomposition of the limbs from the scores, leaving
claims on the witness and the exp table to the walk's witness opening (docs/layers/attn.md,
"Softmax")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.fork import fork, join
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.mha.model import Dims
from cairn.prover.lookups.prover import Fractions, prove_logup
from cairn.prover.mle import eq_table, evaluate, row_combination
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.pcs.stack import commit_stacks
from cairn.prover.softmax.model import (
    SoftmaxTrace,
    forward,
    multiplicities,
    norm_slacks,
    valid_entries,
)
from cairn.prover.softmax.params import SoftmaxParams
from cairn.prover.softmax.proof import ColumnValues, SoftmaxProof
from cairn.prover.softmax.relations import (
    ENTRY_COLUMNS,
    STACKS,
    Relations,
    opening_claims,
    row_mean_point,
    table_denominators,
    witness_layout,
)
from cairn.prover.softmax.tables import exp_table
from cairn.prover.sumcheck.prover import Product, prove_sumcheck

TAG = "cairn/softmax/v1"


@dataclass(frozen=True)
class SoftmaxAdvice:
    """What the prover keeps of its witness: the trace, the scores it came from, the
    multiplicities (the walk keeps the committed stacks)."""

    trace: SoftmaxTrace
    scores: np.ndarray
    counts: tuple[np.ndarray, np.ndarray, np.ndarray]


def commit_softmax(
    dims: Dims, params: SoftmaxParams, scores: np.ndarray, pcs: PcsParams
) -> tuple[dict[str, CommitmentData], SoftmaxAdvice]:
    """Compute the honest trace for QK̂ = `scores` and commit every witness column, stacked
    with `pcs`; returns the commitments by their statement names."""
    trace = forward(scores, valid_entries(dims.h, dims.s, dims.causal), params)
    counts = multiplicities(trace, params)
    columns = {name: getattr(trace, name) for name in ENTRY_COLUMNS}
    columns |= {"z": trace.z, "m_exp": counts[0], "m_limb": counts[1], "m_norm": counts[2]}
    layout = witness_layout(dims, params)
    return commit_stacks(STACKS, layout, columns, pcs), SoftmaxAdvice(trace, scores, counts)


def prove_softmax(
    dims: Dims,
    params: SoftmaxParams,
    advice: SoftmaxAdvice,
    a_claim: Claim,
    parent: Poseidon252Channel,
) -> tuple[SoftmaxProof, Claim, dict[str, list[Claim]]]:
    """From the claim on A = Y (left by A·Ṽ), prove softmax; returns the claim on QK̂ and
    the claims on the witness stacks and the exp table."""
    trace, (m_exp, m_limb, m_norm) = advice.trace, advice.counts
    channel = fork(parent, TAG)
    channel.mix_felts([*a_claim.point, a_claim.value])

    # Lookups: three witness instances, three table instances, one batched LogUp-GKR.
    rel = Relations.draw(channel)
    n1, n2 = norm_slacks(trace, params)
    cols = {name: QM31Array.from_signed(getattr(trace, name)) for name in ENTRY_COLUMNS}
    exp_t, limb_t, norm_t = table_denominators(rel, params)
    instances = [
        Fractions(None, rel.exp.of(cols["e"], cols["live"], cols["y"])),
        Fractions(None, rel.limb.of(cols["lo"], cols["hi"], cols["live"])),
        Fractions(
            None, rel.norm.of(QM31Array.from_signed(np.concatenate([n1.ravel(), n2.ravel()])))
        ),
        Fractions(QM31Array.from_signed(m_exp), exp_t),
        Fractions(QM31Array.from_signed(m_limb), limb_t),
        Fractions(QM31Array.from_signed(m_norm), norm_t),
    ]
    logup, leaves = prove_logup(instances, channel)

    # The column values at the points the GKR left.
    rho = leaves[0].point
    entries = np.stack([getattr(trace, c).ravel() for c in ENTRY_COLUMNS], axis=1)
    at_rho = row_combination(eq_table(rho), embed(entries)).to_list()
    points = [leaf.point for leaf in leaves]
    row_mean = evaluate(embed(trace.y.ravel()), row_mean_point(dims, points))
    columns = ColumnValues(
        *at_rho,
        row_mean,
        evaluate(m_exp, leaves[3].point),
        evaluate(m_limb, leaves[4].point),
        evaluate(m_norm, leaves[5].point),
        evaluate(exp_table(params.theta), points[3][1:]),
    )
    channel.mix_felts(columns.values())

    # Recomposition: ũ(ρ) − (1 − w̃(ρ))·U_MASK = Σ_x eq(ρ, x)·w(x)·(Z(x_row) − c·QK̂(x)).
    z_rep = np.repeat(trace.z.ravel(), dims.s_hat)
    mles = [
        eq_table(rho),
        QM31Array.from_signed(valid_entries(dims.h, dims.s, dims.causal)),
        QM31Array.from_signed(z_rep),
        QM31Array.from_signed(advice.scores),
    ]
    terms = [Product((0, 1, 2)), Product((0, 1, 3), -QM31.from_int(params.c))]
    recompose, r_star, finals = prove_sumcheck(mles, terms, channel)
    shift, score = finals[2], finals[3]
    channel.mix_felts([shift, score])

    witness = opening_claims(dims, params, points, columns, Claim(tuple(r_star), shift), a_claim)
    join(parent, channel)
    parent.mix_felts([*r_star, score])
    proof = SoftmaxProof(logup, columns, recompose, shift, score)
    return proof, Claim(tuple(r_star), score), witness
