"""The honest quantised softmax, exact in int64, and the lookup multiplicities it implies.

Tensors are on MHA's padded grid: scores and entries are ĥ × ŝ × ŝ (head, query i, key j),
rows ĥ × ŝ. On a valid entry u = Z_i − c·S_ij; elsewhere u = U_MASK, whose hi limb is nonzero,
so y = 0 there exactly and an invalid row sums to 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.layers.mha.model import Dims, zeroifier
from cairn.prover.softmax.params import (
    EXP_BITS,
    LIMB_BITS,
    U_BITS,
    U_MASK,
    SoftmaxParams,
)
from cairn.prover.softmax.tables import exp_table


@dataclass(frozen=True)
class SoftmaxTrace:
    """The witness: per-row shifts z (ĥ × ŝ, 0 on invalid rows), the valid rows, and per entry
    the limbs lo, e, hi of u, live = [hi = 0] and y = live·T[e] (ĥ × ŝ × ŝ, int64)."""

    z: np.ndarray
    rows: np.ndarray
    lo: np.ndarray
    e: np.ndarray
    hi: np.ndarray
    live: np.ndarray
    y: np.ndarray


def valid_entries(h: int, s: int, causal: bool) -> np.ndarray:
    """w (ĥ × ŝ × ŝ, bool): [head < h]·z[i, j], z being MHA's zeroifier."""
    dims = Dims(s, h, 1, causal)
    heads = np.arange(dims.h_hat) < h
    return heads[:, None, None] & (zeroifier(dims) == 1)[None]


def trace_with_shifts(
    scores: np.ndarray, valid: np.ndarray, params: SoftmaxParams, z: np.ndarray
) -> SoftmaxTrace:
    """The trace for any shifts z (ĥ × ŝ); z is ignored on invalid rows. Raises ValueError when
    some valid u leaves [0, 2^30), where the limbs would not determine it."""
    valid = np.asarray(valid, dtype=bool)
    rows = valid.any(axis=-1)
    z = np.where(rows, np.asarray(z, dtype=np.int64), 0)
    u = np.where(valid, z[..., None] - params.c * np.asarray(scores, dtype=np.int64), U_MASK)
    if u.min() < 0 or u.max() >= 1 << U_BITS:
        raise ValueError(f"an exp argument u = Z − c·S leaves [0, 2^{U_BITS}): shifts or scores")
    lo = u & ((1 << params.lo_bits) - 1)
    e = (u >> params.lo_bits) & ((1 << EXP_BITS) - 1)
    hi = u >> (params.lo_bits + EXP_BITS)
    live = (hi == 0).astype(np.int64)
    y = live * exp_table(params.theta)[e]
    return SoftmaxTrace(z, rows, lo, e, hi, live, y)


def honest_shifts(scores: np.ndarray, valid: np.ndarray, params: SoftmaxParams) -> np.ndarray:
    """Z_i = max_j c·S_ij + ⌈2^F·ln Σ_j exp((c·S_ij − max)/2^F)⌉ = ⌈2^F·logsumexp⌉ (float64 only
    for the offset, which is ≥ 0 so u ≥ 0 exactly); 0 on invalid rows."""
    x = params.c * np.asarray(scores, dtype=np.int64)
    rows = valid.any(axis=-1)
    top = np.where(valid, x, np.iinfo(np.int64).min).max(axis=-1)
    top = np.where(rows, top, 0)
    scaled = np.where(valid, (x - top[..., None]) / 2.0**params.f, -np.inf)
    mass = np.exp(scaled).sum(axis=-1)
    offset = np.ceil(np.ldexp(np.log(np.where(rows, mass, 1.0)), params.f)).astype(np.int64)
    return np.where(rows, top + offset, 0)


def row_sums(trace: SoftmaxTrace) -> np.ndarray:
    """R_i = Σ_j y_ij (ĥ × ŝ)."""
    return trace.y.sum(axis=-1)


def norm_slacks(trace: SoftmaxTrace, params: SoftmaxParams) -> tuple[np.ndarray, np.ndarray]:
    """n1 = R − v·(2^θ − ε), n2 = v·(2^θ + ε) − R per row; both in [0, 2^k_n) ⟺ |R − 2^θ| ≤ ε on
    valid rows and R = 0 on the others."""
    r, v = row_sums(trace), trace.rows.astype(np.int64)
    one = 1 << params.theta
    return r - v * (one - params.eps), v * (one + params.eps) - r


def _row_sum(x: np.ndarray, z: int, params: SoftmaxParams) -> int:
    """R for one row's valid c·S values x and shift z (u < 2^30 assumed)."""
    u = z - x
    e = (u >> params.lo_bits) & ((1 << EXP_BITS) - 1)
    live = (u >> (params.lo_bits + EXP_BITS)) == 0
    return int(exp_table(params.theta)[e][live].sum())


def nearest_shift(x: np.ndarray, z0: int, params: SoftmaxParams) -> int:
    """The admissible shift nearest z0 for one row's valid c·S values x: |R − 2^θ| ≤ ε with
    every u in [0, 2^30). R is non-increasing in z, so the admissible shifts form an interval
    and a galloping search from z0 finds its near end. Raises ValueError when it is empty."""
    one, eps = 1 << params.theta, params.eps
    lowest, highest = int(x.max()), int(x.min()) + (1 << U_BITS) - 1
    r = _row_sum(x, z0, params)
    if abs(r - one) <= eps:
        return z0
    # Too much mass: the smallest z > z0 with R ≤ 2^θ + ε; too little: the largest z < z0
    # with R ≥ 2^θ − ε. ok(z) is monotone in the search direction.
    step = 1 if r > one else -1
    limit = highest if step > 0 else lowest

    def ok(z: int) -> bool:
        rz = _row_sum(x, z, params)
        return rz <= one + eps if step > 0 else rz >= one - eps

    bad, jump = z0, 1
    while True:
        good = z0 + step * jump
        if (good - limit) * step >= 0:
            good = limit
            if not ok(good):
                raise ValueError(f"no admissible shift for a row near Z = {z0}")
            break
        if ok(good):
            break
        bad, jump = good, 2 * jump
    while abs(good - bad) > 1:
        mid = (good + bad) // 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    if abs(_row_sum(x, good, params) - one) > eps:
        raise ValueError(f"no admissible shift for a row near Z = {z0}: R jumps over ±ε")
    return good


def forward(scores: np.ndarray, valid: np.ndarray, params: SoftmaxParams) -> SoftmaxTrace:
    """The honest trace: ⌈2^F·logsumexp⌉ shifts, moved to the nearest admissible shift on any
    row whose sum misses 2^θ ± ε (none is expected: ε covers the honest error)."""
    scores = np.asarray(scores, dtype=np.int64)
    valid = np.asarray(valid, dtype=bool)
    z = honest_shifts(scores, valid, params)
    trace = trace_with_shifts(scores, valid, params, z)
    off = np.abs(row_sums(trace) - (1 << params.theta)) > params.eps
    off &= trace.rows
    if off.any():
        z = z.copy()
        for idx in zip(*np.nonzero(off), strict=True):
            z[idx] = nearest_shift(params.c * scores[idx][valid[idx]], int(z[idx]), params)
        trace = trace_with_shifts(scores, valid, params, z)
    return trace


def multiplicities(
    trace: SoftmaxTrace, params: SoftmaxParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(m_EXP, m_LIMB, m_NORM): how often each table row is looked up, every entry and row
    counted, masked and padded ones included.

    EXP (2^17 rows, index b·2^16 + i): (e = i, live = b, y = b·T[i]), one lookup per entry.
    LIMB (2^14 rows, index hi·2^lo_bits + lo): (lo, hi, [hi = 0]), one lookup per entry.
    NORM (2^k_n rows, index n): n, two lookups per row (n1 and n2). Raises ValueError when a
    slack is out of range (the row is not accepted)."""
    m_exp = np.bincount((trace.live << EXP_BITS | trace.e).ravel(), minlength=2 << EXP_BITS)
    m_limb = np.bincount((trace.hi << params.lo_bits | trace.lo).ravel(), minlength=1 << LIMB_BITS)
    slacks = np.concatenate([n.ravel() for n in norm_slacks(trace, params)])
    if slacks.min() < 0 or slacks.max() >= 1 << params.k_n:
        raise ValueError(f"a row sum misses 2^{params.theta} ± {params.eps}")
    m_norm = np.bincount(slacks, minlength=1 << params.k_n)
    return m_exp.astype(np.int64), m_limb.astype(np.int64), m_norm.astype(np.int64)
