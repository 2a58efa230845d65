"""Evaluation domains: the x-coordinates of standard-position circle cosets over M31.

The circle x² + y² = 1 over M31 is a group of order p + 1 = 2^31 ((x1, y1)·(x2, y2) =
(x1x2 − y1y2, x1y2 + x2y1)), so it has the 2-adic subgroups a foldable code needs, while M31's
multiplicative group has only 2-adicity 1. The line domain of log size ℓ is

    X_ℓ[j] = x(h^(1 + 4·bitrev_ℓ(j))),   h a point of order 2^(ℓ+2), j < 2^ℓ,

so positions 2j and 2j+1 hold x and −x, and the doubling map π(x) = 2x² − 1 sends both to
X_(ℓ−1)[j]: folding pairs adjacent entries. Every x is nonzero for ℓ ≥ 1.
"""

from __future__ import annotations

import cairn_native
import numpy as np

from cairn.prover.fields.m31 import Coord, P

CIRCLE_GEN = (2, 1268011823)  # a point of order 2^31 (STWO's M31_CIRCLE_GEN)
LOG_CIRCLE_ORDER = 31
MAX_LOG_SIZE = LOG_CIRCLE_ORDER - 2

Point = tuple[Coord, Coord]


def circle_mul(a: Point, b: Point) -> Point:
    return (a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P


def circle_pow(a: Point, e: np.ndarray) -> Point:
    """a^e for an array of non-negative exponents (square-and-multiply, vectorized)."""
    e = np.asarray(e, dtype=np.int64)
    acc: Point = (np.ones_like(e), np.zeros_like(e))
    base = a
    for bit in range(int(e.max(initial=0)).bit_length()):
        take = (e >> bit) & 1 == 1
        prod = circle_mul(acc, base)
        acc = (np.where(take, prod[0], acc[0]), np.where(take, prod[1], acc[1]))
        base = circle_mul(base, base)
    return acc


def subgroup_generator(log_order: int) -> Point:
    """A point of order 2^log_order."""
    point: Point = CIRCLE_GEN
    for _ in range(LOG_CIRCLE_ORDER - log_order):
        point = circle_mul(point, point)
    return point


def bitrev(values: np.ndarray, bits: int) -> np.ndarray:
    """Reverse the low `bits` bits of every value."""
    values = np.asarray(values, dtype=np.int64)
    out = np.zeros_like(values)
    for i in range(bits):
        out |= ((values >> i) & 1) << (bits - 1 - i)
    return out


def check_log_size(log_size: int) -> None:
    if not 1 <= log_size <= MAX_LOG_SIZE:
        raise ValueError(f"line domain log size {log_size} outside [1, {MAX_LOG_SIZE}]")


def fold_twiddles(log_size: int, log_bottom: int) -> np.ndarray:
    """Every fold twiddle of X_ℓ for ℓ = log_bottom + 1 … log_size in one array, smallest
    level first; level ℓ is X_ℓ at the even positions, X_ℓ[2j] for j < 2^(ℓ−1).

    Built natively (prover side, whole domains): the top level by doubling a table in
    bit-reversed order, each lower one as π of the even entries above (π(X_ℓ[2j]) = X_(ℓ−1)[j]).
    """
    check_log_size(log_size)
    if not 0 <= log_bottom < log_size:
        raise ValueError(f"no line domains between 2^{log_bottom} and 2^{log_size}")
    h = subgroup_generator(log_size + 2)
    out = np.empty((1 << log_size) - (1 << log_bottom), dtype=np.int64)
    cairn_native.fold_twiddles(out, (int(h[0]), int(h[1])), log_bottom)
    return out


def twiddles(log_size: int) -> np.ndarray:
    """X_ℓ at the even positions, tw[j] = X_ℓ[2j] for j < 2^(ℓ−1): every fold twiddle of X_ℓ."""
    return fold_twiddles(log_size, log_size - 1)


def twiddles_at(log_size: int, positions: np.ndarray) -> np.ndarray:
    """tw[positions] of `twiddles(log_size)`, by exponentiation (verifier side, few points)."""
    check_log_size(log_size)
    h = subgroup_generator(log_size + 2)
    return circle_pow(h, 1 + 4 * bitrev(positions, log_size - 1))[0]
