"""The decode run's computation and its public statement.

Step t = 1..T takes the new token row x_t, computes q_t, k_t, v_t (the QKV projections of one
row) and writes k_t, v_t into row pos_t = s0 + t − 1 of the caches (l × h, zero beyond the
filled rows): K_t = K_{t−1} + P_t ⊗ k_t with P_t the one-hot vector of pos_t.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.layers.qkv.model import QKV, RELATIONS
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "qkv-decode"
DIM_NAMES = ("T", "l", "e", "h", "s0")
CACHES = ("k", "v")

COMMITTABLE_READS = ("k0", "v0", "k", "v")
"""The check reads the public caches' rows beyond the filled ones (zero), and a cache holds its
prefill rows besides the projection qkv's relations bound: public in any graph. Committed
initial caches have their empty rows shown zero by the proof (`EmptyRowsProof`); committed
caches after each step are then zero there too, as the steps' concatenations fix them."""


def forward(
    x: np.ndarray,
    prefill: Mapping[str, np.ndarray],
    context: int,
    weights: Mapping[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """q: T × h, and k, v: T × l × h, the caches after every step (prefill: s0 × h each)."""
    new = QKV.forward(x, weights)
    steps = x.shape[0]
    s0 = prefill["k"].shape[0]
    filled = np.tri(steps, dtype=bool)[:, :, None]  # step t holds the new rows 1..t
    out = {"q": new["q"]}
    for j in CACHES:
        caches = np.zeros((steps, context, new[j].shape[1]), dtype=np.int64)
        caches[:, :s0] = prefill[j]
        caches[:, s0 : s0 + steps] = np.where(filled, new[j][None], 0)
        out[j] = caches
    return out


def make_statement(
    x: np.ndarray,
    prefill: Mapping[str, np.ndarray],
    context: int,
    weights: Mapping[str, np.ndarray],
) -> Statement:
    """x: T × e new token rows; prefill: the prefill's K and V (s0 × h each, keys "k", "v");
    context: l ≥ s0 + T. dims = (T, l, e, h, s0)."""
    x = np.asarray(x, dtype=np.int64)
    pre = {j: np.asarray(prefill[j], dtype=np.int64) for j in CACHES}
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"qkv-decode needs x: T × e with T ≥ 1; got shape {x.shape}")
    ws = QKV.as_weights(weights, x.shape[1])
    (steps, e), h = x.shape, ws["w_q"].shape[1]
    s0 = pre["k"].shape[0]
    if any(p.shape != (s0, h) for p in pre.values()) or s0 + steps > context:
        raise ValueError(f"prefill must be s0 × {h} each with s0 + T <= {context}")
    for p in pre.values():
        embed(p)
    initial = {f"{j}0": np.zeros((context, h), dtype=np.int64) for j in CACHES}
    for j in CACHES:
        initial[f"{j}0"][:s0] = pre[j]
    return Statement(
        KIND,
        (steps, context, e, h, s0),
        {"x": x} | initial,
        forward(x, pre, context, ws),
        ws,
    )


def check(st: Statement) -> None:
    """Shapes, every write position pos_t = s0 + t − 1 < l, zero rows beyond the filled ones
    in every public cache (the concatenation proof adds k_t to row pos_t, which must be empty,
    so the addition cannot wrap; the proof shows it for committed initial caches), and the
    projections' no-wrap bounds (statement.range)."""
    if len(st.dims) != 5 or min(st.dims[:4]) < 1 or st.dims[4] < 0:
        raise VerificationError("statement.shape", f"qkv-decode dims (T, l, e, h, s0): {st.dims}")
    steps, context, e, h, s0 = st.dims
    if s0 + steps > context:
        raise VerificationError("statement.shape", f"position {s0 + steps - 1} >= l = {context}")
    expect_shapes(st, "inputs", {"x": (steps, e)} | {f"{j}0": (context, h) for j in CACHES})
    expect_shapes(st, "outputs", {"q": (steps, h)} | {j: (steps, context, h) for j in CACHES})
    expect_shapes(st, "weights", QKV.weight_shapes(e, h))
    beyond = np.arange(context)[None, :] >= s0 + 1 + np.arange(steps)[:, None]  # T × l
    inputs, outputs = st.public("inputs"), st.public("outputs")
    for j in CACHES:
        initial, caches = inputs.get(f"{j}0"), outputs.get(j)
        if (initial is not None and np.any(initial[s0:])) or (
            caches is not None and np.any(caches[beyond])
        ):
            raise VerificationError("statement.shape", f"cache {j}: a row beyond the length is set")
    expect_ranges(st, RELATIONS)
