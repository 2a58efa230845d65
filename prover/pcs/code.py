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
from collections.abc import Sequence

import cairn_native
import numpy as np

from cairn.prover.fields.m31 import P, batch_inverse
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.mle import log2_exact
from cairn.prover.pcs.domain import fold_twiddles


@functools.lru_cache(maxsize=4)
def _twiddle_table(log_size: int, log_bottom: int) -> np.ndarray:
    """The fold twiddles of X_ℓ for ℓ = log_bottom + 1 … log_size in one read-only array,
    smallest level first (the order `encode` reads them in). They depend on the sizes only,
    so they are built once for every encoding and fold to come."""
    return _frozen(fold_twiddles(log_size, log_bottom))


@functools.lru_cache(maxsize=4)
def _inverse_table(log_size: int, log_bottom: int) -> np.ndarray:
    """1/(2x) for every entry of `_twiddle_table`: one batch inversion per size."""
    return _frozen(inverse_double(_twiddle_table(log_size, log_bottom)))


def _frozen(table: np.ndarray) -> np.ndarray:
    table.flags.writeable = False
    return table


def _levels(table: np.ndarray, log_size: int, log_bottom: int) -> list[np.ndarray]:
    """The per-level views of a table in `_twiddle_table`'s layout, largest level first."""
    out, start = [], 0
    for level in range(log_bottom + 1, log_size + 1):
        out.append(table[start : start + (1 << (level - 1))])
        start += 1 << (level - 1)
    return out[::-1]


def layer_twiddles(log_size: int, log_bottom: int) -> list[np.ndarray]:
    """Fold twiddles of X_ℓ for ℓ = log_size down to log_bottom + 1, largest first."""
    return _levels(_twiddle_table(log_size, log_bottom), log_size, log_bottom)


def fold_inverses(log_size: int, log_bottom: int) -> list[np.ndarray]:
    """1/(2x) for the twiddles of `layer_twiddles`: what the prover's folds multiply by."""
    return _levels(_inverse_table(log_size, log_bottom), log_size, log_bottom)


def encode(message: np.ndarray, log_blowup: int) -> np.ndarray:
    """The codeword of 2^n canonical M31 values on X_(n+β), β = log_blowup.

    Inverse of n folds, run natively as n butterfly levels: level d turns the encodings of
    the 2^(d+1) sub-messages of length 2^(n−d−1) (rows, in message order) into those of the
    2^d sub-messages of length 2^(n−d): row u from rows 2u (low half) and 2u+1 (high half),
    W[2j] = lo[j] + X[2j]·hi[j], W[2j+1] = lo[j] − X[2j]·hi[j]. The codeword is uint32 (4×
    the message's values, kept until the opening: half the memory of int64).
    """
    n = log2_exact(len(message))
    table = _twiddle_table(n + log_blowup, log_blowup) if n else np.zeros(0, dtype=np.int64)
    out = np.empty(len(message) << log_blowup, dtype=np.uint32)
    cairn_native.encode(out, np.ascontiguousarray(message, dtype=np.int64), table, log_blowup)
    return out


def fold(values: QM31Array, inv_2x: np.ndarray, r: QM31) -> QM31Array:
    """One fold of adjacent pairs along the last value axis (prover: whole layer; verifier:
    query blocks). `inv_2x` holds 1/(2·X[2j]) per output j, broadcast against batch axes.

    even = (lo + hi)/2 is a halving (p is odd: x/2 = (x + (x & 1)·p)/2); only the combination
    with r is a QM31 product: fold = even + (odd − even)·r, odd = (lo − hi)·inv_2x.
    """
    data = np.ascontiguousarray(values.data)
    out = np.empty((*data.shape[:-2], data.shape[-2] // 2, 4), dtype=np.int64)
    tw = np.asarray(inv_2x, dtype=np.int64)
    if tw.shape != out.shape[-2:-1]:  # not one row shared by every block: one per output
        tw = np.broadcast_to(tw, out.shape[:-1])
    cairn_native.codeword_fold(out, data, np.ascontiguousarray(tw), r.coords)
    return QM31Array(out)


def fold_combination(
    terms: Sequence[tuple[QM31, np.ndarray]], inv_2x: np.ndarray, r: QM31
) -> QM31Array:
    """fold(Σ_k β_k·C_k, inv_2x, r) for terms (β_k, C_k) of uint32 codewords of one length
    (the prover's first fold), without building the (QM31) sum: the halving and the twiddle
    product are linear, so they act on each C_k."""
    betas, words = zip(*terms, strict=True)
    out = np.empty((len(words[0]) // 2, 4), dtype=np.int64)
    cairn_native.codeword_fold_combination(
        out, list(words), [b.coords for b in betas], inv_2x, r.coords
    )
    return QM31Array(out)


def scale_base(beta: QM31, values: np.ndarray) -> QM31Array:
    """β·values for base-field values of any shape."""
    return QM31Array(np.array(beta.coords, dtype=np.int64)).mul_base(values)


def inverse_double(x: np.ndarray) -> np.ndarray:
    """1/(2x) for fold twiddles x (all nonzero on the line domains)."""
    return batch_inverse(2 * x % P)
