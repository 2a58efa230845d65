"""The layer's computation and its public statement (docs/layers/mha.md).

Q, K, V are s × h·m, head i owning columns [i·m, (i+1)·m). The protocol works on padded
tensors: ŝ, ĥ, m̂ are the next powers of two of s, h, m and d that of h·m. Intermediate
tensors are laid out as the seed lays them out: X̂ = X·P is ŝ × ĥ × m̂ (an ŝ × ĥm̂ matrix),
scores are ĥ × ŝ × ŝ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
from cairn.prover.linalg import exact_matmul
from cairn.prover.mle import log2_exact, next_pow2, pad_tensor
from cairn.prover.ranges import Relation, Tensors, product_bound
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "mha"
DIM_NAMES = ("s", "h", "m", "causal")

MASK_VALUE = -(1 << 29)
"""The masked score ("−inf"). At a softmax input scale of 2^24 it would be −32.0, where exp rounds
to 0; being −2^29 rather than −(p−1)/2 it leaves room for softmax's shift x − max(row)
to stay in the signed M31 range while unmasked scores stay within ±2^29."""


@dataclass(frozen=True)
class Dims:
    """s tokens, h heads of dimension m; the padded sizes and MLE variable counts follow."""

    s: int
    h: int
    m: int
    causal: bool

    @staticmethod
    def of(st: Statement) -> Dims:
        s, h, m, causal = st.dims[:4]
        return Dims(s, h, m, bool(causal))

    @property
    def s_hat(self) -> int:
        return next_pow2(self.s)

    @property
    def h_hat(self) -> int:
        return next_pow2(self.h)

    @property
    def m_hat(self) -> int:
        return next_pow2(self.m)

    @property
    def d(self) -> int:
        return next_pow2(self.h * self.m)

    @property
    def s_vars(self) -> int:
        return log2_exact(self.s_hat)

    @property
    def h_vars(self) -> int:
        return log2_exact(self.h_hat)

    @property
    def m_vars(self) -> int:
        return log2_exact(self.m_hat)

    @property
    def d_vars(self) -> int:
        return log2_exact(self.d)

    @staticmethod
    def of_heads(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int, causal: bool) -> Dims:
        """The dims of attention over q, k, v (s × h·m each); ValueError if they do not fit."""
        if q.ndim != 2 or q.shape != k.shape or q.shape != v.shape:
            raise ValueError(
                f"attention needs q, k, v of one shape s × h·m; got {q.shape}, {k.shape}, {v.shape}"
            )
        s, width = q.shape
        if heads < 1 or s < 1 or width < 1 or width % heads:
            raise ValueError(f"{width} columns do not split into {heads} heads")
        return Dims(s, heads, width // heads, causal)

    def split_scores(self, point: Sequence[QM31]) -> tuple[list[QM31], list[QM31], list[QM31]]:
        """(head, query token, key token) coordinates of a point on an ĥ × ŝ × ŝ tensor."""
        h, s = self.h_vars, self.s_vars
        return list(point[:h]), list(point[h : h + s]), list(point[h + s :])


def pad_heads(x: np.ndarray, dims: Dims) -> np.ndarray:
    """X̂ = X·P as ŝ × ĥ × m̂: each head's m columns padded to m̂, ĥ − h zero heads added."""
    out = np.zeros((dims.s_hat, dims.h_hat, dims.m_hat), dtype=np.int64)
    out[: dims.s, : dims.h, : dims.m] = x.reshape(dims.s, dims.h, dims.m)
    return out


def zeroifier(dims: Dims) -> np.ndarray:
    """z (ŝ × ŝ): 1 iff i < s ∧ j < s ∧ (not causal ∨ j ≤ i); padded rows and columns are 0."""
    i = np.arange(dims.s_hat)[:, None]
    j = np.arange(dims.s_hat)[None, :]
    keep = (i < dims.s) & (j < dims.s) & ((j <= i) | (not dims.causal))
    return keep.astype(np.int64)


def head_scores(q: np.ndarray, k: np.ndarray, dims: Dims) -> np.ndarray:
    """QK̂ (ĥ × ŝ × ŝ): Q̂_i·K̂_iᵀ for every head at once; zero for the padded heads."""
    qh = pad_heads(q, dims).transpose(1, 0, 2)
    kh = pad_heads(k, dims).transpose(1, 0, 2)
    return exact_matmul(qh, kh.transpose(0, 2, 1))


def mask(scores: np.ndarray, dims: Dims) -> np.ndarray:
    """S_M = QK̂ ⊙ ẑ + m̂: the mask value wherever z is 0, in every head (padded ones too)."""
    z = zeroifier(dims)
    return scores * z + MASK_VALUE * (1 - z)


def attend_heads(a: np.ndarray, v: np.ndarray, dims: Dims) -> np.ndarray:
    """Ô (ŝ × ĥ × m̂): head i is Â_i·Ṽ_i, Â the zero-padded ĥ × ŝ × ŝ softmax matrix and
    Ṽ = V̂ with its first two axes swapped."""
    v_tilde = pad_heads(v, dims).transpose(1, 0, 2)
    return exact_matmul(pad_tensor(a), v_tilde).transpose(1, 0, 2)


def unpad(o_hat: np.ndarray, dims: Dims) -> np.ndarray:
    """O = Ô·U (ŝ × d): the real heads' real columns, zero beyond column h·m."""
    out = np.zeros((dims.s_hat, dims.d), dtype=np.int64)
    out[:, : dims.h * dims.m] = o_hat[:, : dims.h, : dims.m].reshape(dims.s_hat, -1)
    return out


def reference_softmax(scores: np.ndarray, shift: int = 8) -> np.ndarray:
    """A stand-in softmax for tests and demos only — NOT proven and not part of the protocol.

    Per row of the last axis: e = 2^30 >> ⌊(max − x) / 2^shift⌋ (a base-2, piecewise-constant
    exp), then A = ⌊2^16·e / Σe⌋. Integer-only, hence deterministic; masked entries get 0.
    """
    gap = (scores.max(axis=-1, keepdims=True) - scores) >> shift
    e = (1 << 30) >> np.minimum(gap, 31)
    return (e << 16) // e.sum(axis=-1, keepdims=True)


def _by_head(x: np.ndarray, heads: int) -> np.ndarray:
    """s × h·m → h × s × m: head i's columns as one matrix (no padding: bounds ignore zeros)."""
    s, width = x.shape
    return x.reshape(s, heads, width // heads).transpose(1, 0, 2)


def _scores_bound(t: Tensors, dims: Sequence[int]) -> int:
    """|Q_i·K_iᵀ| per head, and |MASK_VALUE|: S_M's masked and padded entries are the mask
    value itself (never a sum, so it adds no wrap; a consumer of S_M reads it, though)."""
    heads = dims[1]
    scores = product_bound(_by_head(t["q"], heads), _by_head(t["k"], heads).transpose(0, 2, 1))
    return max(scores, -MASK_VALUE)


def _attend_bound(t: Tensors, dims: Sequence[int]) -> int:
    """|A_i·V_i| per head, from the public A's row sums (a softmax row sums to its scale)."""
    return product_bound(t["a"], _by_head(t["v"], dims[1]))


RELATIONS = (
    Relation("s_m = mask(q·kᵀ) per head", ("q", "k"), _scores_bound, result="s_m"),
    Relation("o = a·v per head", ("a", "v"), _attend_bound, result="o"),
)
"""Padding and unpadding move entries without summing them, so they add no bound."""


def make_statement(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    heads: int,
    causal: bool,
    softmax: Callable[[np.ndarray], np.ndarray],
) -> Statement:
    """q, k, v: s × h·m. `softmax` maps the real part of S_M (h × s × s) to A (h × s × s);
    its correctness is not proven (the softmax boundary, docs/layers/mha.md)."""
    q, k, v = (np.asarray(x, dtype=np.int64) for x in (q, k, v))
    dims = Dims.of_heads(q, k, v, heads, causal)
    s = dims.s
    for x in (q, k, v):
        embed(x)  # raises if an entry leaves the signed M31 range
    s_m = mask(head_scores(q, k, dims), dims)
    a = np.asarray(softmax(s_m[:heads, :s, :s]), dtype=np.int64)
    if a.shape != (heads, s, s):
        raise ValueError(f"softmax returned shape {a.shape}, not {(heads, s, s)}")
    embed(a)
    o = unpad(attend_heads(a, v, dims), dims)
    return Statement(
        KIND,
        (s, heads, dims.m, int(causal)),
        {"a": a, "k": k, "q": q, "v": v},
        {"o": o, "s_m": s_m},
        {},
    )


def check(st: Statement) -> None:
    if len(st.dims) != 4 or min(st.dims[:3]) < 1 or st.dims[3] not in (0, 1):
        raise VerificationError("statement.shape", f"mha dims (s, h, m, causal) invalid: {st.dims}")
    dims = Dims.of(st)
    s, hm = dims.s, dims.h * dims.m
    expect_shapes(st, "inputs", {"a": (dims.h, s, s), "k": (s, hm), "q": (s, hm), "v": (s, hm)})
    expect_shapes(
        st, "outputs", {"o": (dims.s_hat, dims.d), "s_m": (dims.h_hat, dims.s_hat, dims.s_hat)}
    )
    expect_shapes(st, "weights", {})
    expect_ranges(st, RELATIONS)
