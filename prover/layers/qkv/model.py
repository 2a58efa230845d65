"""The layer's computation and its public statement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed, max_magnitude
from cairn.prover.linalg import exact_matmul
from cairn.prover.ranges import Relation, Tensors, product_bound
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "qkv"
DIM_NAMES = ("s", "e", "h")
PROJECTIONS = ("q", "k", "v")


def weight_shapes(e: int, h: int) -> dict[str, tuple[int, ...]]:
    """W_j: e × h and the bias B_j: h (a vector), for j = q, k, v."""
    return {f"w_{j}": (e, h) for j in PROJECTIONS} | {f"b_{j}": (h,) for j in PROJECTIONS}


def _projection(j: str) -> Relation:
    """x·w_j + b_j: |entry| ≤ product_bound(x, w_j) + max|b_j| (docs/layers/qkv.md)."""
    w, b = f"w_{j}", f"b_{j}"

    def bound(t: Tensors, _: Sequence[int]) -> int:
        return product_bound(t["x"], t[w]) + max_magnitude(t[b])

    return Relation(f"x·{w} + {b}", ("x", w, b), bound, result=j)


RELATIONS = tuple(_projection(j) for j in PROJECTIONS)
"""The three projections; qkv-decode reuses them for its new rows."""


def as_weights(weights: Mapping[str, np.ndarray], e: int) -> dict[str, np.ndarray]:
    """Signed int64 copies of the six weight tensors; ValueError on a wrong name, shape or range."""
    ws = {name: np.asarray(w, dtype=np.int64) for name, w in weights.items()}
    if "w_q" not in ws or ws["w_q"].ndim != 2:
        raise ValueError("the weights need w_q: e × h")
    shapes = weight_shapes(e, ws["w_q"].shape[1])
    got = {name: w.shape for name, w in ws.items()}
    if got != shapes:
        raise ValueError(f"weights must have the shapes {shapes}; got {got}")
    for w in ws.values():
        embed(w)  # raises if an entry leaves the signed M31 range
    return ws


def project(x: np.ndarray, weights: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """X·W_j + 1·B_jᵀ over the integers, for j = q, k, v (exact; ValueError outside M31)."""
    embed(x)
    out = {}
    for j in PROJECTIONS:
        out[j] = exact_matmul(x, weights[f"w_{j}"]) + weights[f"b_{j}"]
        embed(out[j])
    return out


def make_statement(x: np.ndarray, weights: Mapping[str, np.ndarray]) -> Statement:
    """x: s × e tokens; weights: w_q, w_k, w_v (e × h) and b_q, b_k, b_v (h).

    The outputs are exactly s × h; their MLEs are zero on the padded rows like every tensor's,
    so the verifier weighs the bias by the row mask (docs/layers/qkv.md)."""
    x = np.asarray(x, dtype=np.int64)
    if x.ndim != 2:
        raise ValueError(f"qkv needs x: s × e; got shape {x.shape}")
    ws = as_weights(weights, x.shape[1])
    s, e = x.shape
    return Statement(KIND, (s, e, ws["w_q"].shape[1]), {"x": x}, project(x, ws), ws)


def check(st: Statement) -> None:
    if len(st.dims) != 3 or min(st.dims) < 1:
        raise VerificationError("statement.shape", f"qkv dims (s, e, h) invalid: {st.dims}")
    s, e, h = st.dims
    expect_shapes(st, "inputs", {"x": (s, e)})
    expect_shapes(st, "outputs", {j: (s, h) for j in PROJECTIONS})
    expect_shapes(st, "weights", weight_shapes(e, h))
    expect_ranges(st, RELATIONS)
