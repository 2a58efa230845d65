"""layernorm prover: commit the witness before any challenge, then on a Blake2s fork of the
walk's channel prove both requantizations and the limb ranges with one LogUp-GKR, reduce the
scale and normalise products and the statistics by sum-checks, and hand the walk claims on h,
γ and β and the claims on the stacks, which the walk's witness opening settles
(docs/layers/layernorm.md, "Protocol")."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.layers.layernorm.model import LayerNormTrace, forward
from cairn.prover.layers.layernorm.params import (
    LayerNormParams,
    params_of,
    shape_of,
)
from cairn.prover.layers.layernorm.proof import LayerNormProof, LimbColumns
from cairn.prover.layers.layernorm.relations import (
    LIMB,
    NORM,
    SCALE,
    STACKS,
    TAG,
    Relations,
    StepPoints,
    absorb_claims,
    factor_table,
    layer_claims,
    opening_claims,
    witness_layout,
)
from cairn.prover.layers.layernorm.statistics import prove_statistics
from cairn.prover.layers.mha.heads import prove_head_product
from cairn.prover.layers.requant.model import multiplicities
from cairn.prover.layers.requant.prover import columns_at, fractions
from cairn.prover.lookups.prover import Fractions, prove_logup
from cairn.prover.mle import (
    col_combination,
    eq_table,
    evaluate,
    evaluate_tensor,
    pad_tensor,
    row_combination,
    tensor_vars,
)
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.pcs.stack import commit_stacks
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement

Counts = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class LayerNormAdvice:
    """What the prover keeps of its witness: the trace and the multiplicities."""

    trace: LayerNormTrace
    norm_counts: Counts
    scale_counts: Counts
    limb_counts: np.ndarray


def limb_multiplicities(t: LayerNormTrace, offset: int, bits: int) -> np.ndarray:
    """How often each LIMB row is looked up by lo and hi + 2^(w−1) (in-table values only)."""
    keys = np.concatenate([t.lo.ravel(), t.hi.ravel() + offset])
    keys = keys[(keys >= 0) & (keys < 1 << bits)]
    return np.bincount(keys, minlength=1 << bits).astype(np.int64)


def advise_layernorm(
    st: Statement, pcs: PcsParams
) -> tuple[dict[str, CommitmentData], LayerNormAdvice]:
    """Commit the limbs, both gadgets' columns and every multiplicity, stacked, before the walk
    draws anything."""
    p = params_of(st)
    t = forward(st.inputs["h"], st.weights["gamma"], st.weights["beta"], p)
    norm, scale = multiplicities(t.norm, p.norm), multiplicities(t.scale, p.scale)
    limb = limb_multiplicities(t, p.offset, p.limb_bits)
    columns = {"h.lo": t.lo, "h.hi": t.hi, "h.m": limb}
    for prefix, trace, counts in (("norm", t.norm, norm), ("scale", t.scale, scale)):
        cols = trace.columns() | {"m_range": counts[0], "m_clamp": counts[1]}
        columns |= {f"{prefix}.{name}": v for name, v in cols.items()}
    layout = witness_layout(tensor_vars(shape_of(st)), p)
    stacks = commit_stacks(STACKS, layout, columns, pcs)
    return stacks, LayerNormAdvice(t, norm, scale, limb)


def limb_fractions(rel: Relations, p: LayerNormParams, advice: LayerNormAdvice) -> list[Fractions]:
    """The LIMB witness and table instances."""
    witness, table = rel.limb_denominators(p, advice.trace.lo, advice.trace.hi)
    return [Fractions(None, witness), Fractions(QM31Array.from_signed(advice.limb_counts), table)]


def prove_layernorm(
    st: Statement, outputs: dict[str, Claim], parent: Channel, advice: LayerNormAdvice
) -> tuple[LayerNormProof, LayerClaims]:
    p, s = params_of(st), st.dims[0]
    t = advice.trace
    rows = len(outputs["s1"].point)
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    for name in sorted(outputs):
        channel.mix_felts([*outputs[name].point, outputs[name].value])

    y_claim = outputs["y"]
    beta = evaluate_tensor(st.weights["beta"], y_claim.point[rows:])
    channel.mix_felts([beta])

    rel = Relations.draw(channel)
    instances = [
        *fractions(rel.norm, p.norm, t.norm, advice.norm_counts),
        *fractions(rel.scale, p.scale, t.scale, advice.scale_counts),
        *limb_fractions(rel, p, advice),
    ]
    logup, leaves = prove_logup(instances, channel)
    points = [leaf.point for leaf in leaves]
    norm_cols = columns_at(t.norm, advice.norm_counts, points[NORM])
    scale_cols = columns_at(t.scale, advice.scale_counts, points[SCALE])
    rho = points[NORM][1]
    limb_point = points[LIMB][1]
    limbs = LimbColumns(
        evaluate(embed(t.lo.ravel()), rho),
        evaluate(embed(t.hi.ravel()), rho),
        evaluate(embed(advice.limb_counts), limb_point),
    )
    channel.mix_felts([*norm_cols.values(), *scale_cols.values(), *limbs.values()])

    rho_rows, rho_cols = rho[:rows], rho[rows:]
    n_at_rows = row_combination(eq_table(rho_rows), embed(t.norm.y))
    gamma = QM31Array.from_signed(pad_tensor(st.weights["gamma"]))
    scale_step, kappa_cols = prove_head_product(rho_cols, gamma, n_at_rows, channel)

    factors = QM31Array.from_base(factor_table(t.factors))
    centred_at_cols = col_combination(embed(t.centred), eq_table(rho_cols))
    norm_step, kappa_rows = prove_head_product(rho_rows, factors, centred_at_cols, channel)

    lo, hi = (QM31Array.from_signed(x) for x in (t.lo, t.hi))
    stats, pi = prove_statistics(outputs["s1"], outputs["s2"], lo, hi, p.limb_bits, p.d, channel)

    at = StepPoints(
        rho_rows, rho_cols, tuple(kappa_cols), tuple(kappa_rows), tuple(pi), y_claim.point
    )
    sent = (norm_cols, scale_cols, limbs)
    witness = opening_claims(p, points, at, sent, (scale_step.right, beta, stats), y_claim, s)
    join(parent, channel)  # type: ignore[arg-type]

    proof = LayerNormProof(beta, logup, norm_cols, scale_cols, limbs, scale_step, norm_step, stats)
    handed = layer_claims(p, proof, at, evaluate_tensor(t.mean, at.kappa_rows))
    absorb_claims(parent, handed)
    return proof, replace(handed, witness=witness)
