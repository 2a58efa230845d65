"""Attention with softmax inside: O = unpad(softmax(mask(Q·Kᵀ))·V) with every step proven
(docs/layers/attn.md). Q, K are int8 (the softmax parameters assume it), V is bounded so A·V
cannot wrap; the masked scores and A appear nowhere in the statement."""

from __future__ import annotations

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF, max_magnitude
from cairn.prover.layers.mha.model import Dims, attend_heads, head_scores, unpad
from cairn.prover.softmax.model import forward, valid_entries
from cairn.prover.softmax.params import QK_BOUND, SoftmaxParams
from cairn.prover.walk.statement import Statement, expect_shapes

KIND = "attn"
N_DIMS = 9  # s, h, m, causal, then the softmax parameters F, c, θ, ε, k_n


def v_bound(params: SoftmaxParams) -> int:
    """Largest |v| for which O = A·V stays in the signed range: an accepted row of A sums to at
    most 2^θ + ε with every entry ≥ 0, so |O| ≤ (2^θ + ε)·max|v|."""
    return HALF // ((1 << params.theta) + params.eps)


def params_of(st: Statement) -> SoftmaxParams:
    return SoftmaxParams(*st.dims[4:])


def attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, dims: Dims, params: SoftmaxParams
) -> tuple[np.ndarray, np.ndarray]:
    """(A, O): the proven softmax matrix (h × s × s, scale 2^θ) and the layer output."""
    valid = valid_entries(dims.h, dims.s, dims.causal)
    trace = forward(head_scores(q, k, dims), valid, params)
    a = trace.y[: dims.h, : dims.s, : dims.s]
    return a, unpad(attend_heads(a, v, dims), dims)


def make_statement(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int, causal: bool, gamma: float
) -> Statement:
    """q, k, v: s × h·m integers; softmax is taken of γ·Q_iK_iᵀ per head i."""
    q, k, v = (np.asarray(x, dtype=np.int64) for x in (q, k, v))
    if q.ndim != 2 or q.shape != k.shape or q.shape != v.shape:
        raise ValueError(
            f"attn needs q, k, v of one shape s × h·m; got {q.shape}, {k.shape}, {v.shape}"
        )
    s, width = q.shape
    if heads < 1 or s < 1 or width < 1 or width % heads:
        raise ValueError(f"{width} columns do not split into {heads} heads")
    dims = Dims(s, heads, width // heads, causal)
    params = SoftmaxParams.derive(s, dims.m, gamma)
    if problem := range_violation(q, k, v, params):
        raise ValueError(problem)
    _, o = attention(q, k, v, dims, params)
    p = params
    return Statement(
        KIND,
        (s, heads, dims.m, int(causal), p.f, p.c, p.theta, p.eps, p.k_n),
        {"k": k, "q": q, "v": v},
        {"o": o},
        {},
    )


def range_violation(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, params: SoftmaxParams
) -> str | None:
    """Why the inputs fall outside the bounds the proof's integer semantics needs, if they do."""
    for name, x, bound in (("q", q, QK_BOUND), ("k", k, QK_BOUND), ("v", v, v_bound(params))):
        if max_magnitude(x) > bound:
            return f"{name} has entries beyond ±{bound}"
    return None


def check(st: Statement) -> None:
    if len(st.dims) != N_DIMS or min(st.dims[:3]) < 1 or st.dims[3] not in (0, 1):
        raise VerificationError("statement.shape", f"attn dims invalid: {st.dims}")
    dims = Dims.of(st)
    s, hm = dims.s, dims.h * dims.m
    expect_shapes(st, "inputs", {"k": (s, hm), "q": (s, hm), "v": (s, hm)})
    expect_shapes(st, "outputs", {"o": (dims.s_hat, dims.d)})
    expect_shapes(st, "weights", {})
    params = params_of(st)
    params.check(s, dims.m)
    if problem := range_violation(st.inputs["q"], st.inputs["k"], st.inputs["v"], params):
        raise VerificationError("statement.range", problem)
