"""MHA prover: the five sum-checks of docs/layers/mha.md, walking backward from O and S_M.

All heads are handled at once: each sum-check's tables are eq-weighted row or column
combinations of the (padded) layer tensors, computed exactly on BLAS; the only tables of the
scores' full size ĥ·ŝ·ŝ are those of the masking sum-check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.mha.heads import prove_head_product
from cairn.prover.layers.mha.model import (
    Dims,
    attend_heads,
    head_scores,
    pad_heads,
    zeroifier,
)
from cairn.prover.layers.mha.proof import HeadProductStep, MhaProof, OneFactorStep, PadStep
from cairn.prover.mle import col_combination, eq_table, pad_tensor, row_combination
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def _pad_columns(dims: Dims) -> np.ndarray:
    """For unpadded column jh·m + jm (in order), its padded column jh·m̂ + jm."""
    return (np.arange(dims.h)[:, None] * dims.m_hat + np.arange(dims.m)[None, :]).ravel()


def pad_table(dims: Dims, y: Sequence[QM31]) -> QM31Array:
    """P̃(·, y) over the d rows: row jh·m + jm holds eq(y, jh·m̂ + jm), rows ≥ h·m are 0."""
    out = np.zeros((dims.d, 4), dtype=np.int64)
    out[: dims.h * dims.m] = eq_table(y).data[_pad_columns(dims)]
    return QM31Array(out)


def unpad_table(dims: Dims, r: Sequence[QM31]) -> QM31Array:
    """Ũ(·, r) over the ĥm̂ rows: row jh·m̂ + jm holds eq(r, jh·m + jm), padding rows are 0."""
    out = np.zeros((dims.h_hat * dims.m_hat, 4), dtype=np.int64)
    out[_pad_columns(dims)] = eq_table(r).data[: dims.h * dims.m]
    return QM31Array(out)


def _rows(matrix: np.ndarray, r: Sequence[QM31]) -> QM31Array:
    """M̃(r, ·) for a signed-integer matrix whose row count is 2^len(r)."""
    return row_combination(eq_table(r), embed(matrix))


def _one_factor(
    mles: list[QM31Array], products: list[Product], unknown: int, channel: Channel
) -> tuple[OneFactorStep, list[QM31]]:
    """Sum-check, then send (absorb) the value of the one MLE the verifier cannot evaluate."""
    sumcheck, point, finals = prove_sumcheck(mles, products, channel)
    channel.mix_felts([finals[unknown]])
    return OneFactorStep(sumcheck, finals[unknown]), point


@dataclass(frozen=True)
class AttendPoint:
    """Where unpadding and A·Ṽ end: A is claimed at (r_x, r_s, r_y), Ṽ at (r_x, r_y, r_m)."""

    r_s: Sequence[QM31]
    r_x: Sequence[QM31]
    r_y: Sequence[QM31]
    r_m: Sequence[QM31]

    @property
    def a(self) -> tuple[QM31, ...]:
        return (*self.r_x, *self.r_s, *self.r_y)


@dataclass(frozen=True)
class ScorePoint:
    """Where QKᵀ and padding end: Q at (r_2, r), K at (r_3, r), V at (r_y, r)."""

    r_2: Sequence[QM31]
    r_3: Sequence[QM31]
    r: Sequence[QM31]


def input_claims(
    attend: HeadProductStep, pad: PadStep, at: AttendPoint, sp: ScorePoint
) -> dict[str, list[Claim]]:
    """The claims on Q, K, V, the same for prover and verifier (and for mha and attn)."""
    return {
        "k": [Claim((*sp.r_3, *sp.r), pad.k)],
        "q": [Claim((*sp.r_2, *sp.r), pad.q)],
        "v": [Claim((*at.r_y, *sp.r), pad.v)],
    }


def prove_attend(
    dims: Dims, a: np.ndarray, v: np.ndarray, o: Claim, channel: Channel
) -> tuple[OneFactorStep, HeadProductStep, AttendPoint]:
    """Steps 1-2 from the claim on O: unpadding, then A·Ṽ for all heads (a: h × s × s)."""
    s_hat, h_vars, s_vars = dims.s_hat, dims.h_vars, dims.s_vars

    # 1. Unpadding: O(r_s, r_d) = Σ_x Ô(r_s, x)·U(x, r_d).
    r_s, r_d = o.point[:s_vars], o.point[s_vars:]
    o_hat = attend_heads(a, v, dims).reshape(s_hat, -1)
    unpad, point = _one_factor(
        [_rows(o_hat, r_s), unpad_table(dims, r_d)], [Product((0, 1))], 0, channel
    )

    # 2. A·Ṽ: Ô(r_s, r_h, r_m) = Σ_{x,y} eq(x, r_h)·Â(x, r_s, y)·Ṽ(x, y, r_m).
    r_h, r_m = point[:h_vars], point[h_vars:]
    a_hat = pad_tensor(a).transpose(1, 0, 2).reshape(s_hat, -1)  # rows: the query token
    v_cols = col_combination(embed(pad_heads(v, dims).reshape(-1, dims.m_hat)), eq_table(r_m))
    v_tilde = QM31Array(v_cols.data.reshape(s_hat, dims.h_hat, 4).transpose(1, 0, 2).reshape(-1, 4))
    attend, point = prove_head_product(r_h, _rows(a_hat, r_s), v_tilde, channel)
    return unpad, attend, AttendPoint(r_s, point[:h_vars], point[h_vars:], r_m)


def prove_scores(
    dims: Dims,
    tensors: tuple[np.ndarray, np.ndarray, np.ndarray],
    scores: Sequence[QM31],
    at: AttendPoint,
    channel: Channel,
) -> tuple[HeadProductStep, PadStep, ScorePoint]:
    """Steps 4-5 from a claim on QK̂ at `scores`: QKᵀ for all heads, then padding of Q, K and
    V (V's claim from A·Ṽ joins by λ)."""
    q, k, v = tensors
    r_1, r_2, r_3 = dims.split_scores(scores)

    # 4. QKᵀ: QK̂(r_1, r_2, r_3) = Σ_x eq(x_head, r_1)·Q̂(r_2, x)·K̂(r_3, x).
    q_hat, k_hat = (pad_heads(t, dims).reshape(dims.s_hat, -1) for t in (q, k))
    heads, r_c = prove_head_product(r_1, _rows(q_hat, r_2), _rows(k_hat, r_3), channel)

    # 5. Padding, λ-batched: X̂(r_row, r_col) = Σ_x X(r_row, x)·P(x, r_col) for X = Q, K, V.
    lam = channel.draw_secure_felts(2)
    mles = [
        _rows(pad_tensor(q), r_2),
        _rows(pad_tensor(k), r_3),
        _rows(pad_tensor(v), at.r_y),
        pad_table(dims, r_c),
        pad_table(dims, [*at.r_x, *at.r_m]),
    ]
    products = [Product((0, 3)), Product((1, 3), lam[0]), Product((2, 4), lam[1])]
    sumcheck, point, finals = prove_sumcheck(mles, products, channel)
    channel.mix_felts(finals[:3])
    return heads, PadStep(sumcheck, *finals[:3]), ScorePoint(r_2, r_3, point)


def prove_mha(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[MhaProof, LayerClaims]:
    dims = Dims.of(st)
    q, k, v, a = (st.inputs[name] for name in ("q", "k", "v", "a"))
    unpad, attend, at = prove_attend(dims, a, v, outputs["o"], channel)

    # 3. Masking: S_M(r) − m̃(r_2, r_3) = Σ_x eq(x, r)·ẑ(x)·QK̂(x).
    z_hat = QM31Array.from_base(np.tile(zeroifier(dims).ravel(), dims.h_hat))
    scores = QM31Array.from_base(embed(head_scores(q, k, dims)).ravel())
    masking, point = _one_factor(
        [eq_table(outputs["s_m"].point), z_hat, scores], [Product((0, 1, 2))], 2, channel
    )

    heads, pad, sp = prove_scores(dims, (q, k, v), point, at, channel)
    proof = MhaProof(unpad, attend, masking, heads, pad)
    claims = input_claims(attend, pad, at, sp) | {"a": [Claim(at.a, attend.left)]}
    return proof, LayerClaims(claims, {})
