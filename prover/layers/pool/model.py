"""The layer's computation and its public statement."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.ranges import Relation, Tensors
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "pool"
DIM_NAMES = ("s", "d")


def _column_bound(t: Tensors, _: Sequence[int]) -> int:
    """max_c Σ_i |x[i, c]| (≤ s·max|x|), exact in int64 for s ≤ 2^32."""
    return int(np.abs(t["x"]).sum(axis=0).max())


RELATIONS = (Relation("y = Σ_i x[i]", ("x",), _column_bound, result="y"),)


def forward(x: np.ndarray) -> np.ndarray:
    """The column sums over the s tokens: the mean pooling's numerator (divisor s public)."""
    return x.sum(axis=0)


def make_statement(x: np.ndarray) -> Statement:
    """x: s × d token rows."""
    x = np.asarray(x, dtype=np.int64)
    if x.ndim != 2 or 0 in x.shape:
        raise ValueError(f"pool needs x: s×d; got shape {x.shape}")
    embed(x)  # raises if an entry leaves the signed M31 range
    y = forward(x)
    embed(y)
    return Statement(KIND, x.shape, {"x": x}, {"y": y}, {})


def check(st: Statement) -> None:
    if len(st.dims) != 2 or min(st.dims) < 1:
        raise VerificationError("statement.shape", f"pool dims (s, d) invalid: {st.dims}")
    s, d = st.dims
    expect_shapes(st, "inputs", {"x": (s, d)})
    expect_shapes(st, "outputs", {"y": (d,)})
    expect_shapes(st, "weights", {})
    expect_ranges(st, RELATIONS)
