"""The layer's computation and its public statement."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed, max_magnitude
from cairn.prover.ranges import Relation, Tensors
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "add"
DIM_NAMES = ("rows", "cols")


def _sum_bound(t: Tensors, _: Sequence[int]) -> int:
    """|a + b| ≤ max|a| + max|b|: monotone in both, and a bound on y (docs/layers/add.md)."""
    return max_magnitude(t["a"]) + max_magnitude(t["b"])


RELATIONS = (Relation("a + b", ("a", "b"), _sum_bound, result="y"),)


def make_statement(a: np.ndarray, b: np.ndarray) -> Statement:
    """a, b: rows × cols; the output y = a + b (exact; ValueError outside M31)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.ndim != 2 or a.shape != b.shape:
        raise ValueError(f"add needs a, b: rows × cols of one shape; got {a.shape}, {b.shape}")
    embed(a)
    embed(b)
    y = a + b
    embed(y)  # raises if a sum leaves the signed M31 range
    return Statement(KIND, tuple(a.shape), {"a": a, "b": b}, {"y": y}, {})


def check(st: Statement) -> None:
    if len(st.dims) != 2 or min(st.dims) < 1:
        raise VerificationError("statement.shape", f"add dims (rows, cols) invalid: {st.dims}")
    shape = tuple(st.dims)
    expect_shapes(st, "inputs", {"a": shape, "b": shape})
    expect_shapes(st, "outputs", {"y": shape})
    expect_shapes(st, "weights", {})
    expect_ranges(st, RELATIONS)
