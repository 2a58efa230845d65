"""The statistics step (docs/layers/layernorm.md, step 7): the public row sums s1 and limb
sums s2 are what the committed limbs of h sum to.

The walk left claims s̃1(r₁) = v₁ and s̃2(r₂, r_k) = v₂. With e_k = eq(r_k, k), [j < d] the
real columns' mask and μ drawn here, one degree-3 sum-check over the entries x = (i, j) of

    Σ_x [j < d]·(eq(r₁, i)·(lo + 2^w·hi)(x) + μ·eq(r₂, i)·(e₀·lo² + e₁·lo·hi + e₂·hi²)(x))
        = v₁ + μ·v₂

ends at π with l̃o(π), h̃i(π) sent; the verifier evaluates the eq factors and the mask itself.
The mask keeps h's padded columns out of the sums, whatever they hold: in a model walk h may be
hidden, and a committed weight's padding upstream can put junk there (docs/model-walk.md,
"Padding").
"""

from __future__ import annotations

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.layernorm.proof import StatisticsStep
from cairn.prover.layers.layernorm.relations import recompose
from cairn.prover.layers.mha.heads import head_select_table
from cairn.prover.layers.mha.structured import head_select_mle
from cairn.prover.mle import eq_eval, hypercube_point, prefix_mask
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.sumcheck.verifier import verify_sumcheck

DEGREE = 3
LIMB_PRODUCTS = ((2, 2), (2, 3), (3, 3))
"""lo², lo·hi, hi² as indices into the sum-check's tables [eq₁, eq₂, lo, hi]."""


def _column_weights(s2: Claim, rows: int) -> list[QM31]:
    """e_k = eq(r_k, k) for the limb sums k = 0, 1, 2 (s2's column point)."""
    col = s2.point[rows:]
    return [eq_eval(col, hypercube_point(k, len(col))) for k in range(len(LIMB_PRODUCTS))]


def _real_columns(size: int, rows: int, d: int) -> np.ndarray:
    """[j < d] over the `size` entries of 2^rows rows, row-major, as a column to scale by."""
    cols = size >> rows
    return np.tile(np.arange(cols) < d, 1 << rows)[:, None]


def prove_statistics(
    s1: Claim, s2: Claim, lo: QM31Array, hi: QM31Array, w: int, d: int, channel: Channel
) -> tuple[StatisticsStep, list[QM31]]:
    """lo, hi: the limbs over every entry (2^n, row-major), d the real columns; returns the
    step and π."""
    mu = channel.draw_secure_felt()
    rows = len(s1.point)
    weights = [mu * e for e in _column_weights(s2, rows)]
    real = _real_columns(len(lo), rows, d)
    tables = [
        QM31Array(head_select_table(r, len(lo)).data * real) for r in (s1.point, s2.point[:rows])
    ]
    products = [Product((0, 2)), Product((0, 3), QM31.from_int(1 << w))]
    products += [Product((1, *t), e) for t, e in zip(LIMB_PRODUCTS, weights, strict=True)]
    sumcheck, point, finals = prove_sumcheck([*tables, lo, hi], products, channel)
    channel.mix_felts(finals[2:])
    return StatisticsStep(sumcheck, finals[2], finals[3]), point


def verify_statistics(
    step: StatisticsStep, s1: Claim, s2: Claim, n: int, w: int, d: int, channel: Channel
) -> list[QM31]:
    """The mirror; raises `layernorm.statistics` unless the sum-check's end is the summand at
    π in the sent limbs. Returns π."""
    mu = channel.draw_secure_felt()
    rows = len(s1.point)
    claim = s1.value + mu * s2.value
    point, final = verify_sumcheck(claim, step.sumcheck, n, DEGREE, channel)
    real = prefix_mask(point[rows:], d)
    eq1 = head_select_mle(s1.point, point) * real
    eq2 = head_select_mle(s2.point[:rows], point) * real
    lo, hi = step.lo, step.hi
    limbs = (lo * lo, lo * hi, hi * hi)
    squares = sum(
        (e * v for e, v in zip(_column_weights(s2, rows), limbs, strict=True)), QM31.zero()
    )
    if final != eq1 * recompose(w, lo, hi) + mu * eq2 * squares:
        raise VerificationError("layernorm.statistics", "the limbs do not sum to s1 and s2")
    channel.mix_felts([lo, hi])
    return point
