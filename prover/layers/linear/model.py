"""The layer's computation and its public statement: one projection of `projection.py`."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cairn.prover.layers.linear.projection import Projections
from cairn.prover.walk.statement import Statement

KIND = "linear"
DIM_NAMES = ("s", "e", "h")
LINEAR = Projections(KIND, ("y",), (("w", "b"),))
RELATIONS = LINEAR.relations()
"""x·w + b, result y: |y| ≤ product_bound(x, w) + max|b|."""


def make_statement(x: np.ndarray, weights: Mapping[str, np.ndarray]) -> Statement:
    """x: s × e; weights: w (e × h) and b (h); the output y = x·w + b is s × h."""
    return LINEAR.make_statement(x, weights)


def check(st: Statement) -> None:
    LINEAR.check(st)
