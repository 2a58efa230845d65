"""Requantization y = clamp(⌊(x·M + 2^(k−1))/2^k⌋, ±(2^(b−1) − 1)) of a public 2-D integer
tensor, proven with range lookups (docs/layers/requant.md). The statement's input bits a
(|x| < 2^a) fix the table sizes; the remainders and quotients are committed witness."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import max_magnitude
from cairn.prover.layers.requant import soundness
from cairn.prover.layers.requant.params import (
    CLAMP_BITS_MAX,
    RequantParams,
    entry_vars,
    params_of,
)
from cairn.prover.layers.requant.verifier import check_commitments
from cairn.prover.mle import pad_tensor
from cairn.prover.ranges import Relation, Tensors, pow2
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "requant"
DIM_NAMES = ("rows", "cols", "M", "k", "b", "a", "w")
N_DIMS = 7


def _scaled_bound(t: Tensors, dims: Sequence[int]) -> int:
    """|x·M + 2^(k−1)|: the value the remainder and quotient limbs decompose."""
    multiplier, shift = dims[2], dims[3]
    return max_magnitude(t["x"]) * multiplier + pow2(shift - 1)


def _clamp_bound(_: Tensors, dims: Sequence[int]) -> int:
    """|y| ≤ 2^(b−1) − 1, whatever x: the CLAMP lookup admits nothing wider."""
    return pow2(dims[4] - 1) - 1


BOUNDED = ("x",)
"""x's values are checked against A (|x| ≤ A): public in a requant statement, never committed
by `--commit-io`; hidden in a model walk, where its producer's bound stands in for them."""

RELATIONS = (
    Relation("x·M + 2^(k−1) = yq·2^k + r", ("x",), _scaled_bound),
    Relation("|y| ≤ 2^(b−1) − 1", (), _clamp_bound, result="y"),
)
"""The decomposition holds over the integers once |x·M + 2^(k−1)| ≤ (p−1)/2 (the parameters
cap it below 2^30 for |x| ≤ A, statement.range in check_public); y is bounded by the CLAMP
table, so a consumer may assume |y| ≤ 2^(b−1) − 1 whatever x is."""


@dataclass(frozen=True)
class RequantTrace:
    """The witness on the zero-padded input (padded entries: y' = 0, r = 2^(k−1), y = 0)."""

    r0: np.ndarray
    r1: np.ndarray
    yq: np.ndarray
    y: np.ndarray

    def columns(self) -> dict[str, np.ndarray]:
        return {"r0": self.r0, "r1": self.r1, "yq": self.yq, "y": self.y}


def trace(x: np.ndarray, p: RequantParams) -> RequantTrace:
    value = pad_tensor(np.asarray(x, dtype=np.int64)) * p.multiplier + p.half
    yq = value >> p.shift
    r = value - (yq << p.shift)
    r1 = r >> p.lo_bits
    return RequantTrace(r - (r1 << p.lo_bits), r1, yq, np.clip(yq, -p.clamp, p.clamp))


def multiplicities(t: RequantTrace, p: RequantParams) -> tuple[np.ndarray, np.ndarray]:
    """How often each RANGE and CLAMP row is looked up (values outside a table not counted,
    which only matters to a cheating prover)."""
    r0, r1 = t.r0.ravel(), t.r1.ravel()
    ranges = np.concatenate([r0, r1, r1 + p.delta, np.zeros_like(r0)])
    rows = t.yq.ravel() - p.quotient_range[0]
    counts = []
    for keys, bits in ((ranges, p.lo_bits), (rows, p.table_bits)):
        keys = keys[(keys >= 0) & (keys < 1 << bits)]
        counts.append(np.bincount(keys, minlength=1 << bits).astype(np.int64))
    return counts[0], counts[1]


def requantize(x: np.ndarray, p: RequantParams) -> np.ndarray:
    rows, cols = np.shape(x)
    return trace(x, p).y[:rows, :cols]


def make_statement(
    x: np.ndarray, multiplier: int, shift: int, bits: int, in_bits: int | None = None
) -> Statement:
    """x: a 2-D integer tensor; a = `in_bits`, by default the bits of max|x| (in a model walk,
    those of the bound x's producer guarantees, which is what the verifier can check); the
    window w the narrowest the quotients fit (ValueError beyond 2^20: an overflow)."""
    x = np.asarray(x, dtype=np.int64)
    if x.ndim != 2:
        raise ValueError(f"requant takes a 2-D input, not shape {x.shape}")
    in_bits = max_magnitude(x).bit_length() if in_bits is None else in_bits
    value = x * multiplier + (1 << max(shift - 1, 0))
    top = max(int(value.max(initial=0)) >> shift, -(int(value.min(initial=0)) >> shift) - 1)
    window = min(top.bit_length() + 1, CLAMP_BITS_MAX)
    p = RequantParams.of_bits(multiplier, shift, bits, in_bits, window)
    dims = (*x.shape, multiplier, shift, bits, in_bits, window)
    st = Statement(KIND, dims, {"x": x}, {"y": np.zeros_like(x)}, {})
    try:
        check_public(st)  # before any work is spent on it
    except VerificationError as e:
        raise ValueError(str(e)) from None
    if top.bit_length() + 1 > window:
        raise ValueError(
            f"requantization overflow: a quotient beyond ±2^{window - 1} "
            f"(x too large for k = {shift})"
        )
    return Statement(KIND, dims, {"x": x}, {"y": requantize(x, p)}, {})


def error_terms(st: Statement) -> dict[str, float]:
    """The soundness error terms of this statement's proof (docs/layers/requant.md)."""
    return soundness.error_terms(entry_vars(st), params_of(st))


def check(st: Statement) -> None:
    """The verifier's statement check: the public part, then the witness commitment."""
    check_public(st)
    check_commitments(entry_vars(st), params_of(st), st.witness)


def check_public(st: Statement) -> None:
    """Shapes, parameters, the no-wrap bound and |x| ≤ A = 2^a − 1."""
    if len(st.dims) != N_DIMS or min(st.dims[:2]) < 1:
        raise VerificationError("statement.shape", f"requant dims invalid: {st.dims}")
    shape = tuple(st.dims[:2])
    expect_shapes(st, "inputs", {"x": shape})
    expect_shapes(st, "outputs", {"y": shape})
    expect_shapes(st, "weights", {})
    p = params_of(st)
    if problem := p.problem():
        raise VerificationError("requant.params", problem)
    if problem := p.range_problem():
        raise VerificationError("statement.range", problem)
    if "x" in st.committed or max_magnitude(st.inputs["x"]) > p.bound:
        raise VerificationError(
            "statement.range",
            f"x has entries beyond A = {p.bound} (2^a − 1, or less where x·M could wrap)",
        )
    expect_ranges(st, RELATIONS)
    if problem := p.table_problem() or soundness.security_problem(entry_vars(st), p):
        raise VerificationError("requant.params", problem)
