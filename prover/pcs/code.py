"""The foldable code: Reed–Solomon over M31 on the line domains of `domain`, in the basis
that makes folding the multilinear fold of the message.

A message m of 2^n values (index MSB-first, as every MLE in Cairn) is the coefficient vector
c_k = m[bitrev_n(k)] in the basis b_k(x) = Π_i π^i(x)^(k_i), where k_i is bit i of k and
π(x) = 2x² − 1. b_k has degree k, so the code is RS[X_(n+β), 2^n] of rate 2^−β. Splitting
by the lowest coefficient bit, f(x) = f_lo(π x) + x·f_hi(π x), where f_lo and f_hi encode the
two halves of m. Hence

    fold(W, r)[j] = (1 − r)·(W[2j] + W[2j+1]) / 2 + r·(W[2j] − W[2j+1]) / (2·X[2j])

encodes (1 − r)·m_lo + r·m_hi = m(r, ·), and n folds leave the constant m̃(r_1, …, r_n).
"""

from __future__ import annotations

import functools

import numpy as np

from cairn.prover.fields.m31 import P, batch_inverse
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.mle import log2_exact
from cairn.prover.pcs.domain import double_x, twiddles


@functools.lru_cache(maxsize=4)
def layer_twiddles(log_size: int, log_bottom: int) -> tuple[np.ndarray, ...]:
    """Fold twiddles of X_ℓ for ℓ = log_size down to log_bottom + 1, largest first.

    They depend on the sizes only: cached (read-only) for the encodings and folds to come."""
    out = [twiddles(log_size)]
    for _ in range(log_size - log_bottom - 1):
        out.append(double_x(out[-1][0::2]))
    return _frozen(out)


@functools.lru_cache(maxsize=4)
def fold_inverses(log_size: int, log_bottom: int) -> tuple[np.ndarray, ...]:
    """1/(2x) for every fold twiddle of `layer_twiddles`: what the prover's folds divide by,
    batch-inverted once per size instead of once per opening."""
    return _frozen([inverse_double(tw) for tw in layer_twiddles(log_size, log_bottom)])


def _frozen(arrays: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    for a in arrays:
        a.flags.writeable = False
    return tuple(arrays)


BLOCK = 1 << 14  # butterflies per numpy call: the working set (8 arrays) stays in L2 cache


def _butterflies(lo: np.ndarray, hi: np.ndarray, tw: np.ndarray, out: np.ndarray) -> None:
    """out[..., 2j] = lo + tw·hi, out[..., 2j+1] = lo − tw·hi (mod p), in place.

    Values stay lazily reduced below 2^31 + 8 (2^31 ≡ 1 mod p, so a fold of the high bits
    onto the low ones is one shift, one mask and one add); products stay below 2^63.
    """
    x = hi * tw
    t = x & P
    x >>= 31
    t += x
    np.add(lo, t, out=x)
    even = out[..., 0::2]
    np.bitwise_and(x, P, out=even)
    x >>= 31
    even += x
    np.subtract(lo, t, out=x)
    x += 4 * P
    odd = out[..., 1::2]
    np.bitwise_and(x, P, out=odd)
    x >>= 31
    odd += x


def encode(message: np.ndarray, log_blowup: int) -> np.ndarray:
    """The codeword of 2^n canonical M31 values on X_(n+β), β = log_blowup.

    Inverse of n folds, run as n butterfly levels: level d turns the encodings of the 2^(d+1)
    sub-messages of length 2^(n−d−1) (rows, in message order) into those of the 2^d
    sub-messages of length 2^(n−d): row u from rows 2u (low half) and 2u+1 (high half),
    W[2j] = lo[j] + X[2j]·hi[j], W[2j+1] = lo[j] − X[2j]·hi[j]. Each level runs in blocks of
    BLOCK butterflies so numpy's temporaries stay in cache.
    """
    n = log2_exact(len(message))
    src = np.repeat(np.asarray(message, dtype=np.int64), 1 << log_blowup)
    dst = np.empty_like(src)
    tws = reversed(layer_twiddles(n + log_blowup, log_blowup)) if n else []
    for level, tw in zip(range(n - 1, -1, -1), tws, strict=True):
        width = len(tw)  # columns of the input rows
        rows_in = src.reshape(2 << level, width)
        rows_out = dst.reshape(1 << level, 2 * width)
        pairs = max(1, BLOCK // width)  # row pairs per call
        cols = min(width, BLOCK)
        for u in range(0, 1 << level, pairs):
            for c in range(0, width, cols):
                _butterflies(
                    rows_in[2 * u : 2 * (u + pairs) : 2, c : c + cols],
                    rows_in[2 * u + 1 : 2 * (u + pairs) : 2, c : c + cols],
                    tw[c : c + cols],
                    rows_out[u : u + pairs, 2 * c : 2 * (c + cols)],
                )
        src, dst = dst, src
    return np.where(src >= P, src - P, src)


def _canonical(x: np.ndarray) -> np.ndarray:
    """Values in (−p, p) -> [0, p), in place (an arithmetic shift makes the sign mask)."""
    x += (x >> 63) & P
    return x


def fold(values: QM31Array, inv_2x: np.ndarray, r: QM31) -> QM31Array:
    """One fold of adjacent pairs along the last value axis (prover: whole layer; verifier:
    query blocks). `inv_2x` holds 1/(2·X[2j]) per output j, broadcast against batch axes.

    even = (lo + hi)/2 is a shift (p is odd: x/2 = (x + (x & 1)·p) >> 1); only the
    combination with r is a QM31 product.
    """
    lo, hi = values.data[..., 0::2, :], values.data[..., 1::2, :]
    even = _canonical(lo + hi - P)
    even += (even & 1) * P
    even >>= 1
    odd = _canonical(lo - hi) * np.asarray(inv_2x)[..., None] % P
    return QM31Array(_canonical(odd - even)) * r + QM31Array(even)


def scale_base(beta: QM31, values: np.ndarray) -> QM31Array:
    """β·values for base-field values of any shape: one outer product."""
    return QM31Array(np.multiply.outer(values, np.array(beta.coords, dtype=np.int64)) % P)


def inverse_double(x: np.ndarray) -> np.ndarray:
    """1/(2x) for fold twiddles x (all nonzero on the line domains)."""
    return batch_inverse(2 * x % P)
