"""The layer's computation and its public statement: three projections of one input."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cairn.prover.layers.linear.projection import Projections
from cairn.prover.walk.statement import Statement

KIND = "qkv"
DIM_NAMES = ("s", "e", "h")
PROJECTIONS = ("q", "k", "v")
QKV = Projections(KIND, PROJECTIONS, tuple((f"w_{j}", f"b_{j}") for j in PROJECTIONS))
RELATIONS = QKV.relations()
"""x·w_j + b_j with result j, for j = q, k, v; qkv-decode reuses them for its new rows."""


def make_statement(x: np.ndarray, weights: Mapping[str, np.ndarray]) -> Statement:
    """x: s × e tokens; weights: w_q, w_k, w_v (e × h) and b_q, b_k, b_v (h)."""
    return QKV.make_statement(x, weights)


def check(st: Statement) -> None:
    QKV.check(st)
