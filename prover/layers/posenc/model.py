"""The layer's computation and its public statement."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed, max_magnitude
from cairn.prover.mle import next_pow2
from cairn.prover.ranges import Relation, Tensors
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "posenc"
DIM_NAMES = ("s", "c", "e")


def _implied_table(t: Tensors, dims: Sequence[int]) -> int:
    """max |o − x| on the s token rows: the table rows p[:s] the output implies. Given
    o ≡ x + p (mod p), |o − x| ≤ (p−1)/2 holds exactly when o = x + p over the integers, for a
    public table and for a committed one alike (docs/layers/posenc.md, "Over the integers")."""
    return max_magnitude(t["o"][: dims[0]] - t["x"])


RELATIONS = (Relation("o = x + p", ("o", "x"), _implied_table),)
COMMITTABLE_READS = ("o", "x")
"""The bound reads o − x, which no worst case of either bounds: both public in any graph; a
layer statement may commit them (the relation then holds mod p only)."""


def forward(x: np.ndarray, p: np.ndarray) -> np.ndarray:
    """X̂ + P̂[:ŝ] on ŝ = next_pow2(s) rows (docs/layers/posenc.md): rows s..ŝ-1 carry P's
    rows (positions a longer sequence would use); consumers treat them as padding."""
    rows = next_pow2(x.shape[0])
    out = np.zeros((rows, x.shape[1]), dtype=np.int64)
    out[: x.shape[0]] = x
    out[: min(rows, p.shape[0])] += p[:rows]
    return out


def make_statement(x: np.ndarray, p: np.ndarray) -> Statement:
    """x: s x e token embeddings, p: c x e positional table (s <= c)."""
    x = np.asarray(x, dtype=np.int64)
    p = np.asarray(p, dtype=np.int64)
    if x.ndim != 2 or p.ndim != 2 or x.shape[1] != p.shape[1] or x.shape[0] > p.shape[0]:
        raise ValueError(f"posenc needs x: s×e and p: c×e with s <= c; got {x.shape}, {p.shape}")
    o = forward(x, p)
    embed(o)  # raises if a sum leaves the signed M31 range
    s, e = x.shape
    return Statement(KIND, (s, p.shape[0], e), {"x": x}, {"o": o}, {"p": p})


def check(st: Statement) -> None:
    if len(st.dims) != 3 or min(st.dims) < 1 or st.dims[0] > st.dims[1]:
        raise VerificationError("statement.shape", f"posenc dims (s, c, e) invalid: {st.dims}")
    s, c, e = st.dims
    expect_shapes(st, "inputs", {"x": (s, e)})
    expect_shapes(st, "outputs", {"o": (next_pow2(s), e)})
    expect_shapes(st, "weights", {"p": (c, e)})
    expect_ranges(st, RELATIONS)
