"""Attention with softmax inside: O = unpad(softmax(mask(Q·Kᵀ))·V) with every step proven
(docs/layers/attn.md). Q, K are int8 (the softmax parameters assume it), V is bounded so A·V
cannot wrap; the masked scores and A appear nowhere in the statement."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import max_magnitude
from cairn.prover.layers.mha.model import Dims, attend_heads, head_scores, unpad
from cairn.prover.pcs.stack import witness_hash
from cairn.prover.ranges import Relation, Tensors, pow2
from cairn.prover.softmax import soundness
from cairn.prover.softmax.model import forward, valid_entries
from cairn.prover.softmax.params import QK_BOUND, SoftmaxParams
from cairn.prover.softmax.tables import fixed_tables
from cairn.prover.softmax.verifier import check_commitments
from cairn.prover.walk.layer import FixedTable
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "attn"
DIM_NAMES = ("s", "h", "m", "causal", "F", "c", "θ", "ε", "k_n")
N_DIMS = 9  # s, h, m, causal, then the softmax parameters F, c, θ, ε, k_n
BOUNDED = ("k", "q")
"""The check bounds q and k (int8, as the softmax parameters assume) by their values: public in
attn's own statement; in a model walk a requantization's range bounds them (`LayerSpec.bounded`)."""


def params_of(st: Statement) -> SoftmaxParams:
    return SoftmaxParams(*st.dims[4:])


def _attend_bound(t: Tensors, dims: Sequence[int]) -> int:
    """|A_i·V_i|: an accepted row of A has entries ≥ 0 summing to at most 2^θ + ε."""
    _, _, _, _, _, _, theta, eps, _ = dims
    return (pow2(theta) + eps) * max_magnitude(t["v"])


RELATIONS = (Relation("o = softmax(γ·q·kᵀ)·v per head", ("v",), _attend_bound, result="o"),)
"""QKᵀ needs no bound of its own: q and k are int8 (|S| ≤ m·127² ≤ 2^28/c, softmax.params)."""


def attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, dims: Dims, params: SoftmaxParams
) -> tuple[np.ndarray, np.ndarray]:
    """(A, O): the proven softmax matrix (h × s × s, scale 2^θ) and the layer output, s × h·m
    like the inputs. The proof runs on MHA's padded layout (ŝ × d, the real heads' columns
    first, zero beyond): its MLE is that of O zero-padded, so O chains into the next layer."""
    valid = valid_entries(dims.h, dims.s, dims.causal)
    trace = forward(head_scores(q, k, dims), valid, params)
    a = trace.y[: dims.h, : dims.s, : dims.s]
    return a, unpad(attend_heads(a, v, dims), dims)[: dims.s, : dims.h * dims.m]


def make_statement(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int, causal: bool, gamma: float
) -> Statement:
    """q, k, v: s × h·m integers; softmax is taken of γ·Q_iK_iᵀ per head i."""
    q, k, v = (np.asarray(x, dtype=np.int64) for x in (q, k, v))
    dims = Dims.of_heads(q, k, v, heads, causal)
    s = dims.s
    params = SoftmaxParams.derive(s, dims.m, gamma)
    if problem := range_violation(q, k):
        raise ValueError(problem)
    _, o = attention(q, k, v, dims, params)
    p = params
    st = Statement(
        KIND,
        (s, heads, dims.m, int(causal), p.f, p.c, p.theta, p.eps, p.k_n),
        {"k": k, "q": q, "v": v},
        {"o": o},
        {},
    )
    try:
        check_public(st)  # refuses a V for which A·V could wrap, before any work is spent on it
    except VerificationError as e:
        raise ValueError(str(e)) from None
    return st


def range_violation(q: np.ndarray, k: np.ndarray) -> str | None:
    """Why Q or K fall outside the int8 range the softmax parameters assume, if they do."""
    for name, x in (("q", q), ("k", k)):
        if max_magnitude(x) > QK_BOUND:
            return f"{name} has entries beyond ±{QK_BOUND}, the int8 range softmax assumes"
    return None


def error_terms(st: Statement) -> dict[str, float]:
    """The soundness error terms of this statement's proof (docs/layers/attn.md)."""
    return soundness.error_terms(Dims.of(st), params_of(st))


def tables(st: Statement) -> dict[str, FixedTable]:
    """The exp table of the statement's θ, which softmax's claims fall on, committed with its
    witness's hash."""
    return fixed_tables(params_of(st).theta, witness_hash(st.witness))


def check(st: Statement) -> None:
    """The verifier's statement check: the public part, then softmax's witness commitment."""
    check_public(st)
    check_commitments(Dims.of(st), params_of(st), st.witness)


def check_public(st: Statement) -> None:
    """Shapes, softmax parameters and ranges: everything but the prover's witness."""
    if len(st.dims) != N_DIMS or min(st.dims[:3]) < 1 or st.dims[3] not in (0, 1):
        raise VerificationError("statement.shape", f"attn dims invalid: {st.dims}")
    dims = Dims.of(st)
    s, hm = dims.s, dims.h * dims.m
    expect_shapes(st, "inputs", {"k": (s, hm), "q": (s, hm), "v": (s, hm)})
    expect_shapes(st, "outputs", {"o": (s, hm)})
    expect_shapes(st, "weights", {})
    params = params_of(st)
    params.check(s, dims.m)
    if problem := soundness.security_problem(dims, params):
        raise VerificationError("softmax.params", problem)
    if not (st.known("q") and st.known("k")):
        raise VerificationError(
            "statement.range", "q and k must be bounded: int8 (in a model walk, a requantization)"
        )
    if problem := range_violation(st.inputs["q"], st.inputs["k"]):
        raise VerificationError("statement.range", problem)
    expect_ranges(st, RELATIONS)
