"""Closed-form MLEs of the layer's fixed tensors, so the verifier never builds them
(derivations and costs in docs/layers/mha.md).

Points are MSB-first like every MLE here (docs/claim-walk.md). Each function equals the MLE of
the matrix the seed defines; tests/test_mha_structured.py checks that by brute force.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.mha.model import MASK_VALUE
from cairn.prover.mle import binary, eq_eval, eq_table, log2_exact, next_pow2

ONE = QM31.one()


def _bit(r: QM31, b: int) -> QM31:
    """eq(r, b) for one variable and a bit b."""
    return r if b else ONE - r


def _advance(decided: bool, lo: int, hi: int) -> bool | None:
    """One MSB-first step of the comparison lo < hi: decided (True), still equal (False), or
    violated (None)."""
    if decided or lo < hi:
        return True
    return False if lo == hi else None


def head_select_mle(r_head: Sequence[QM31], point: Sequence[QM31]) -> QM31:
    """b̃(point) for b[x, y] = eq(x, r_head): y does not occur, so b̃ = eq(point_x, r_head)."""
    return eq_eval(point[: len(r_head)], r_head)


def zeroifier_mle(s: int, causal: bool, a: Sequence[QM31], b: Sequence[QM31]) -> QM31:
    """z̃(a, b) = Σ_{i<s, j<s, (j≤i if causal)} eq(a, i)·eq(b, j), ŝ = 2^len(a).

    A DP over the bit pairs (i_t, j_t), MSB first. The state records which of the strict
    comparisons i < s, j < s and j < i are already decided (8 states); a comparison still
    undecided at the end is an equality, so acceptance is i < s ∧ j < s decided, with j ≤ i
    allowing either. Non-causal starts with j < i decided (no constraint); s = ŝ starts with
    both bounds decided. O(log ŝ): 8 states × 4 bit pairs per level.
    """
    n = len(a)
    full = s == 1 << n
    s_bits = binary(0 if full else s, n)
    states = {(full, full, not causal): ONE}
    for t in range(n):
        nxt: dict[tuple[bool, bool, bool], QM31] = {}
        for (i_lt, j_lt, ji_lt), acc in states.items():
            for bi in (0, 1):
                for bj in (0, 1):
                    state = (
                        _advance(i_lt, bi, s_bits[t]),
                        _advance(j_lt, bj, s_bits[t]),
                        _advance(ji_lt, bj, bi),
                    )
                    if None in state:
                        continue
                    w = acc * _bit(a[t], bi) * _bit(b[t], bj)
                    key = (bool(state[0]), bool(state[1]), bool(state[2]))
                    nxt[key] = nxt[key] + w if key in nxt else w
        states = nxt
    total = QM31.zero()
    for (i_lt, j_lt, _), acc in states.items():
        if i_lt and j_lt:
            total = total + acc
    return total


def mask_mle(s: int, causal: bool, a: Sequence[QM31], b: Sequence[QM31]) -> QM31:
    """m̃ = MASK·(1 − z̃): m is MASK exactly where z is 0, and the MLE is linear."""
    return (ONE - zeroifier_mle(s, causal, a, b)) * QM31.from_int(MASK_VALUE)


def pad_mle(h: int, m: int, x: Sequence[QM31], y: Sequence[QM31]) -> QM31:
    """P̃(x, y) for the padding matrix P (d × ĥm̂), y = (y_h, y_m) on log ĥ + log m̂ variables.

    P̃ = Σ_{jh<h, jm<m} eq(x, jh·m + jm)·eq(y_h, jh)·eq(y_m, jm). With m = 2^a·μ, μ odd, the
    low a bits of the row index are those of jm, so P̃ = eq(x_lo, y_m,lo)·P̃_{h,μ}(x_hi, y_h,
    y_m,hi), and P̃_{h,μ} is a long-division DP (`_divide`). O(μ·log d): O(log d) when m is a
    power of two.
    """
    a = (m & -m).bit_length() - 1
    y_h, y_m = y[: log2_exact(next_pow2(h))], y[log2_exact(next_pow2(h)) :]
    n, k = len(x) - a, len(y_m) - a
    return eq_eval(x[n:], y_m[k:]) * _divide(h, m >> a, x[:n], y_h, y_m[:k])


def unpad_mle(h: int, m: int, x: Sequence[QM31], y: Sequence[QM31]) -> QM31:
    """Ũ(x, y) = P̃(y, x): U = Pᵀ (both pair column jh·m + jm with padded column jh·m̂ + jm)."""
    return pad_mle(h, m, y, x)


def _divide(h: int, mu: int, x: Sequence[QM31], y_h: Sequence[QM31], y_r: Sequence[QM31]) -> QM31:
    """Σ_{i < h·μ} eq(x, i)·eq(y_h, ⌊i/μ⌋)·eq(y_r, i mod μ) for odd μ, by long division.

    Reading i's bits MSB first, the state is the running remainder ρ (μ values) and whether
    the quotient prefix is already below h's (else equal). Bit b sends ρ to v = 2ρ + b, emits
    quotient bit c = [v ≥ μ] and keeps ρ' = v − c·μ; for each b the map ρ → ρ' is a bijection
    (2 is invertible mod odd μ), so one step is a permuted, weighted vector update. The
    quotient is < h ≤ ĥ, so its bits above y_h's range are 0 on every accepted path; they
    carry weight 1. At the end ρ = i mod μ, weighted by eq(y_r, ρ).
    """
    n, top = len(x), len(x) - len(y_h)
    full = h == 1 << n  # then every quotient is below h and the equal state stays empty
    h_bits = binary(0 if full else h, n)
    rho = np.arange(mu)
    moves = []
    for b in (0, 1):
        v = 2 * rho + b
        c = (v >= mu).astype(np.int64)
        moves.append((b, c, v - c * mu))
    equal = np.zeros((mu, 4), dtype=np.int64)
    below = np.zeros((mu, 4), dtype=np.int64)
    (below if full else equal)[0, 0] = 1
    for t in range(n):
        quotient = (ONE, ONE) if t < top else (_bit(y_h[t - top], 0), _bit(y_h[t - top], 1))
        new_equal = np.zeros_like(equal)
        new_below = np.zeros_like(below)
        for b, c, dest in moves:
            xb = _bit(x[t], b)
            w = QM31Array.from_list([xb * quotient[0], xb * quotient[1]])[c]
            moved_equal = (QM31Array(equal) * w).data
            moved_below = (QM31Array(below) * w).data
            new_below[dest] += moved_below + moved_equal * (c < h_bits[t])[:, None]
            new_equal[dest] += moved_equal * (c == h_bits[t])[:, None]
        equal, below = new_equal % P, new_below % P
    return (QM31Array(below) * eq_table(y_r)[:mu]).sum()
