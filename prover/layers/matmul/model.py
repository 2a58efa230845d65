"""The layer's computation and its public statement: one projection of `projection.py` without
a bias, named as the product it is: input a (m × k), weight b (k × n), output c (m × n)."""

from __future__ import annotations

import numpy as np

from cairn.prover.layers.linear.projection import Projections
from cairn.prover.walk.statement import Statement

KIND = "matmul"
DIM_NAMES = ("m", "k", "n")
MATMUL = Projections(KIND, ("c",), (("b", None),), input="a")
RELATIONS = MATMUL.relations()
"""a·b, result c: |c| ≤ product_bound(a, b)."""


def make_statement(a: np.ndarray, b: np.ndarray) -> Statement:
    """a: m × k, b: k × n; the output c = a·b is m × n (ValueError on shapes or range)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply shapes {a.shape} and {b.shape}")
    return MATMUL.make_statement(a, {"b": b})


def check(st: Statement) -> None:
    MATMUL.check(st)
