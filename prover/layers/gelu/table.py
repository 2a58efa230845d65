"""The GELU table of all-MiniLM-L6-v2's integer FFN (docs/models/minilm.md, "FFN"): one
definition for the model's forward pass and for the `gelu` layer's lookup, whose verifier
rebuilds it from the statement's parameters (docs/layers/gelu.md)."""

from __future__ import annotations

import functools
import math

import numpy as np


@functools.lru_cache(maxsize=8)
def gelu_table(f_in: int, b_in: int, f_out: int, b_out: int) -> np.ndarray:
    """T[g + 2^(b_in−1)] = ⌊G·Φ(x) + ½⌋ for every g of b_in signed bits, where x = g·2^−f_in,
    G = x·2^f_out (so G·Φ(x) = GELU(x)·2^f_out, exact erf form), clamped to b_out signed bits.

    Bit-reproducible from float64: G and G + ½ are exact dyadic numbers and Φ(−|x|) comes from
    erfc with a few ulps of relative error. For x > 0 the value is G − δ with δ = G·Φ(−x) > 0;
    when δ < 10^−6 the rounding is decided exactly (it drops one unit iff G + ½ is an integer),
    otherwise, as for x < 0, the float64 error (< 10^−9) cannot cross an integer unless the
    value lies that close to a rounding tie, which raises instead of guessing."""
    if f_in - f_out > 18:
        raise ValueError("the GELU table needs f_out >= f_in − 18")
    g = np.arange(-(1 << (b_in - 1)), 1 << (b_in - 1), dtype=np.int64)
    x = g.astype(np.float64) * 2.0**-f_in
    big_g = x * 2.0**f_out
    tail = np.fromiter(
        (0.5 * math.erfc(abs(v) / math.sqrt(2.0)) for v in x.tolist()), np.float64, len(x)
    )
    delta = big_g * tail
    half_up = big_g + 0.5
    exact = (x > 0) & (delta < 1e-6)
    value = np.where(x > 0, half_up - delta, delta + 0.5)
    frac = value - np.floor(value)
    if np.any(~exact & (np.minimum(frac, 1 - frac) < 1e-9)):
        raise ValueError("a GELU table entry lies within 1e-9 of a rounding tie")
    rounded = np.where(exact, np.floor(half_up) - (half_up == np.floor(half_up)), np.floor(value))
    lim = (1 << (b_out - 1)) - 1
    table = np.clip(rounded, -lim, lim).astype(np.int64)
    table.flags.writeable = False  # cached: shared by every caller
    return table
