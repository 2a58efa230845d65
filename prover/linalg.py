"""Exact integer and mod-p matrix products on float64 BLAS.

float64 represents integers exactly below 2^53. Splitting canonical M31 values into a 16-bit
and a 15-bit limb keeps every limb product below 2^31, so an inner dimension up to 2^21 sums
exactly; longer inner dimensions are processed in chunks.
"""

from __future__ import annotations

import numpy as np

from cairn.prover.fields.m31 import HALF, P, max_magnitude

_MAX_EXACT = 1 << 53
_CHUNK = 1 << 21


def _limb_product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x @ y mod p for inner dimension <= 2^21: four BLAS products of 16/15-bit limbs."""
    xl, xh = (x & 0xFFFF).astype(np.float64), (x >> 16).astype(np.float64)
    yl, yh = (y & 0xFFFF).astype(np.float64), (y >> 16).astype(np.float64)
    ll = (xl @ yl).astype(np.int64)
    mid = (xl @ yh).astype(np.int64) % P + (xh @ yl).astype(np.int64) % P
    hh = (xh @ yh).astype(np.int64) % P
    # 2^32 = 2 (mod p) because 2^31 = 1.
    return (ll % P + (mid % P << 16) + 2 * hh) % P


def matmul_mod_p(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x @ y mod p for canonical M31 int64 matrices (2-D or vector operands)."""
    inner = x.shape[-1]
    acc = _limb_product(x[..., :_CHUNK], y[:_CHUNK])
    for start in range(_CHUNK, inner, _CHUNK):
        acc = (acc + _limb_product(x[..., start : start + _CHUNK], y[start : start + _CHUNK])) % P
    return acc


def exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b over the integers for signed int64 matrices, via BLAS when provably exact.

    Raises ValueError if an entry of the product leaves the signed M31 range.
    """
    bound = max_magnitude(a) * max_magnitude(b) * a.shape[-1]
    if bound < _MAX_EXACT:
        c = np.rint(a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)
    elif bound < 1 << 63:
        c = a @ b
    else:
        raise ValueError("operands too large for an exact int64 product")
    if max_magnitude(c) > HALF:
        raise ValueError(f"product entry outside the signed M31 range |x| <= {HALF}")
    return c
