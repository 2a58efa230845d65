"""LayerNorm with exact integer statistics, proven as a walk layer (docs/layers/layernorm.md).

For each row h (d integers), the public statistics S1 = Σh and the limb sums of Σh² give the
rounded mean μ and the row factor r exactly (Python integers, both sides); then
n = R((h − μ)·r; k_n, b_n), z = R(n·γ; k_z, b_z) and y = z + β, R the requantization of
prover/layers/requant. The statement publishes h, γ, β, y and the statistics; the limbs of h,
the remainders and n, z are committed witness.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import max_magnitude
from cairn.prover.layers.layernorm import soundness
from cairn.prover.layers.layernorm.params import LayerNormParams, params_of, shape_of
from cairn.prover.layers.layernorm.relations import check_commitments
from cairn.prover.layers.requant.model import RequantTrace
from cairn.prover.layers.requant.model import trace as requant_trace
from cairn.prover.mle import pad_tensor, tensor_vars
from cairn.prover.ranges import Relation, Tensors, square_norm
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "layernorm"
DIM_NAMES = ("s", "d", "w", "R", "E", "k_n", "b_n", "g", "k_z", "b_z")
N_DIMS = len(DIM_NAMES)
LIMB_SUMS = 3
"""s2 holds per row Σlo², Σlo·hi, Σhi² (h = lo + 2^w·hi): each fits M31, Σh² need not."""


def limb_bits(h: np.ndarray) -> int:
    """The smallest w ≥ 1 with every entry of h in [−2^(2w−1), 2^(2w−1))."""
    top = max(int(h.max(initial=0)), -int(h.min(initial=0)) - 1).bit_length()
    return max(1, (top + 2) // 2)


def limbs(h: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """h = lo + 2^w·hi with lo ∈ [0, 2^w) (hi is the floor quotient, signed)."""
    return h & ((1 << w) - 1), h >> w


def statistics(h: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row S1 = Σh and the limb sums (Σlo², Σlo·hi, Σhi²), exact in int64 for parameters
    that pass `LayerNormParams.problem`."""
    lo, hi = limbs(h, w)
    sums = [(a * b).sum(axis=-1) for a, b in ((lo, lo), (lo, hi), (hi, hi))]
    return h.sum(axis=-1), np.stack(sums, axis=-1)


def square_sum(limb_sums: Sequence[int], w: int) -> int:
    """S2 = Σlo² + 2^(w+1)·Σlo·hi + 2^(2w)·Σhi², a Python integer (it may exceed p)."""
    a, b, c = (int(v) for v in limb_sums)
    return a + (b << (w + 1)) + (c << (2 * w))


def row_mean(s1: int, d: int) -> int:
    """μ = ⌊(2·S1 + d)/(2d)⌋: S1/d rounded half up."""
    return (2 * s1 + d) // (2 * d)


def norm_factor(s1: int, s2: int, d: int, shift: int, e: int) -> int:
    """r = isqrt(⌊2^(2R)·d² / (d·S2 − S1² + d²·E)⌋) from a row's exact sums, so that
    (h − μ)·r ≈ 2^R·(h − mean)/√(variance + ε); a zero denominator counts as 1."""
    return math.isqrt((d * d << (2 * shift)) // max(1, d * s2 - s1 * s1 + d * d * e))


def row_factors(
    s1: np.ndarray, limb_sums: np.ndarray, p: LayerNormParams
) -> tuple[np.ndarray, np.ndarray]:
    """(μ, r) per row from the public statistics: what the verifier computes itself."""
    mean, factor = [], []
    for a, sums in zip(s1.tolist(), limb_sums.tolist(), strict=True):
        mean.append(row_mean(a, p.d))
        factor.append(norm_factor(a, square_sum(sums, p.limb_bits), p.d, p.shift, p.eps))
    return np.array(mean, dtype=np.int64), np.array(factor, dtype=np.int64)


@dataclass(frozen=True)
class LayerNormTrace:
    """The prover's witness on the zero-padded ŝ × d̂ grid: the limbs of h, the centred rows
    c = h − μ, both requantizations; the row means μ and factors r (s each); the output y."""

    lo: np.ndarray
    hi: np.ndarray
    centred: np.ndarray
    mean: np.ndarray
    factors: np.ndarray
    norm: RequantTrace
    scale: RequantTrace
    y: np.ndarray


def forward(
    h: np.ndarray, gamma: np.ndarray, beta: np.ndarray, p: LayerNormParams
) -> LayerNormTrace:
    """The integer LayerNorm of every row of h (s × d) and its witness."""
    return normalise(h, gamma, beta, p, *row_factors(*statistics(h, p.limb_bits), p))


def normalise(
    h: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    p: LayerNormParams,
    mean: np.ndarray,
    factors: np.ndarray,
) -> LayerNormTrace:
    """Everything after the statistics, for given row means μ and factors r."""
    s, d = h.shape
    centred = pad_tensor(h - mean[:, None])
    norm = requant_trace(centred * pad_tensor(factors)[:, None], p.norm)
    scale = requant_trace(norm.y * pad_tensor(gamma)[None, :], p.scale)
    lo, hi = limbs(pad_tensor(h), p.limb_bits)
    return LayerNormTrace(lo, hi, centred, mean, factors, norm, scale, scale.y[:s, :d] + beta)


def _params(dims: Sequence[int]) -> LayerNormParams:
    """The parameters the bounds read; ValueError unless valid (a model walk reads a node's
    output bounds before its check has refused its dims: none is then given, and the check
    refuses the node)."""
    if len(dims) != N_DIMS:
        raise ValueError(f"layernorm takes {N_DIMS} dims: {tuple(dims)}")
    p = LayerNormParams(*dims[1:])
    if problem := p.problem():
        raise ValueError(problem)
    return p


def _row_sum_bound(_: Tensors, dims: Sequence[int]) -> int:
    return _params(dims).row_sum_bound()


def _limb_sum_bound(_: Tensors, dims: Sequence[int]) -> int:
    return _params(dims).limb_sum_bound()


def _norm_bound(_: Tensors, dims: Sequence[int]) -> int:
    p = _params(dims).norm
    return p.bound + p.half


def _scale_bound(t: Tensors, dims: Sequence[int]) -> int:
    p = _params(dims)
    return p.norm.clamp * max_magnitude(t["gamma"]) + p.scale.half


def _output_bound(t: Tensors, dims: Sequence[int]) -> int:
    """|y| ≤ 2^(b_z−1) − 1 + max|β|: z is clamped by its gadget."""
    return _params(dims).scale.clamp + max_magnitude(t["beta"])


def _output_norm(t: Tensors, dims: Sequence[int]) -> Fraction:
    """An upper bound on ‖y_i‖₂ over the rows, from the public statistics: ‖(h − μ)·r‖₂ =
    r·√Σ(h − μ)² exactly (Σ(h − μ)² = S2 − 2μ·S1 + d·μ²); each requantization moves an entry
    by at most ½ (√d/2 per row) and its clamp only shrinks it; γ scales by at most
    max|γ|/2^k_z; β adds ‖β‖₂ (docs/layers/layernorm.md, "Row norms")."""
    p = _params(dims)
    d, half_row = p.d, Fraction(_ceil_sqrt(p.d), 2)
    worst = 0
    for s1, sums in zip(t["s1"].tolist(), t["s2"].tolist(), strict=True):
        s2, mean = square_sum(sums, p.limb_bits), row_mean(s1, d)
        centred = s2 - 2 * mean * s1 + d * mean * mean
        worst = max(worst, norm_factor(s1, s2, d, p.shift, p.eps) ** 2 * centred)
    n = Fraction(_ceil_sqrt(worst), 1 << p.norm_shift) + half_row
    z = n * max_magnitude(t["gamma"]) / (1 << p.scale_shift) + half_row
    return z + _ceil_sqrt(square_norm(t["beta"]))


def _ceil_sqrt(n: int) -> int:
    r = math.isqrt(n)
    return r if r * r == n else r + 1


READS = ("s1", "s2")
"""The row statistics the verifier computes μ and r from: public in any graph."""

RELATIONS = (
    Relation("s1 = Σ_j h", (), _row_sum_bound, result="s1"),
    Relation("s2 = Σ_j (lo², lo·hi, hi²)", (), _limb_sum_bound, result="s2"),
    Relation("(h − μ)·r + 2^(k_n−1) = 2^k_n·n' + rem", (), _norm_bound),
    Relation("n·γ + 2^(k_z−1) = 2^k_z·z' + rem", ("gamma",), _scale_bound),
    Relation("y = z + β", ("beta",), _output_bound, result="y"),
    Relation(
        "‖y_i‖₂ from the row statistics",
        ("s1", "s2", "gamma", "beta"),
        lambda t, dims: min(math.ceil(_output_norm(t, dims)), _output_bound(t, dims)),
        result="y",
        row_sq=lambda t, dims: math.ceil(_output_norm(t, dims) ** 2),
    ),
)
"""h is range-checked by its limbs, so the statistics and (h − μ)·r are bounded by the
parameters alone (|(h − μ)·r| ≤ 2^(R+1)·√(d−1) for any row, docs/layers/layernorm.md); n·γ
and y read the weights. Every bound is monotone in its operands' magnitudes."""


def make_statement(
    h: np.ndarray, gamma: np.ndarray, beta: np.ndarray, p: LayerNormParams
) -> Statement:
    """h: s × d integers; gamma, beta: d integers."""
    h, gamma, beta = (np.asarray(x, dtype=np.int64) for x in (h, gamma, beta))
    if h.ndim != 2 or h.shape[1] != p.d or gamma.shape != (p.d,) or beta.shape != (p.d,):
        raise ValueError(f"layernorm takes h (s × {p.d}), gamma and beta ({p.d}): {h.shape}")
    dims = (h.shape[0], *dataclasses.astuple(p))
    weights = {"beta": beta, "gamma": gamma}
    s = h.shape[0]
    outputs = {"s1": np.zeros(s, np.int64), "s2": np.zeros((s, LIMB_SUMS), np.int64)}
    st = Statement(KIND, dims, {"h": h}, outputs | {"y": np.zeros_like(h)}, weights)
    try:
        check_public(st)  # before any work is spent on it
    except VerificationError as e:
        raise ValueError(str(e)) from None
    s1, limb_sums = statistics(h, p.limb_bits)
    outputs = {"s1": s1, "s2": limb_sums, "y": forward(h, gamma, beta, p).y}
    return Statement(KIND, dims, {"h": h}, outputs, weights)


def error_terms(st: Statement) -> dict[str, float]:
    """The soundness error terms of this statement's proof (docs/layers/layernorm.md)."""
    s, d = shape_of(st)
    return soundness.error_terms(tensor_vars((s,)), tensor_vars((d,)), params_of(st))


def check(st: Statement) -> None:
    """The verifier's statement check: the public part, then the witness commitment."""
    check_public(st)
    check_commitments(tensor_vars(shape_of(st)), params_of(st), st.witness)


def check_public(st: Statement) -> None:
    """Shapes, parameters, the declared ranges of h and γ, the relations' bounds, soundness."""
    if len(st.dims) != N_DIMS or min(st.dims[:3]) < 1:
        raise VerificationError("statement.shape", f"layernorm dims invalid: {st.dims}")
    s, d = shape_of(st)
    expect_shapes(st, "inputs", {"h": (s, d)})
    expect_shapes(st, "outputs", {"s1": (s,), "s2": (s, LIMB_SUMS), "y": (s, d)})
    expect_shapes(st, "weights", {"beta": (d,), "gamma": (d,)})
    p = params_of(st)
    if problem := p.problem():
        raise VerificationError("layernorm.params", problem)
    lo, hi = p.h_range
    h = st.inputs["h"] if st.known("h") else np.zeros(0, dtype=np.int64)
    if h.min(initial=0) < lo or h.max(initial=0) > hi:
        raise VerificationError("statement.range", f"h has entries outside [{lo}, {hi}]")
    if st.known("gamma") and max_magnitude(st.weights["gamma"]) > p.gamma_bound:
        raise VerificationError("statement.range", f"γ has entries beyond ±{p.gamma_bound}")
    expect_ranges(st, RELATIONS)
    if problem := soundness.security_problem(tensor_vars((s,)), tensor_vars((d,)), p):
        raise VerificationError("layernorm.params", problem)
