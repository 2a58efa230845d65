"""QKV prover: O(s·e + e·h) field work on top of computing the outputs.

X(a_j, ·) is a row combination of X̂ and W_j(·, c_j) a column combination of Ŵ_j, both exact
on BLAS; the sum-check then runs on six vectors of length ê.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.qkv.model import PROJECTIONS
from cairn.prover.layers.qkv.proof import QkvProof
from cairn.prover.mle import (
    col_combination,
    eq_table,
    evaluate,
    pad_tensor,
    row_combination,
    tensor_vars,
)
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement, Tensors


@dataclass(frozen=True)
class Target:
    """The claim O_j(rows[row], col) = value on projection j's output (j = q, k, v in order)."""

    row: int
    col: tuple[QM31, ...]
    value: QM31


def canonical(tensors: Tensors) -> dict[str, np.ndarray]:
    """Zero-padded canonical M31 tables, as the MLEs read them."""
    return {name: embed(pad_tensor(t)) for name, t in tensors.items()}


def output_targets(
    outputs: Mapping[str, Claim], row_vars: int
) -> tuple[list[tuple[QM31, ...]], list[Target]]:
    """Split each output claim's point into its row point a_j and column point c_j."""
    rows = [outputs[j].point[:row_vars] for j in PROJECTIONS]
    targets = [
        Target(i, outputs[j].point[row_vars:], outputs[j].value) for i, j in enumerate(PROJECTIONS)
    ]
    return rows, targets


def projection_claims(
    rows: Sequence[tuple[QM31, ...]],
    targets: Sequence[Target],
    point: Sequence[QM31],
    proof: QkvProof,
) -> tuple[list[Claim], dict[str, list[Claim]]]:
    """The claims the sum-check leaves: X(a, r) per row point, W_j(r, c_j) and B_j(c_j)."""
    x_claims = [Claim((*a, *point), v) for a, v in zip(rows, proof.x, strict=True)]
    weights: dict[str, list[Claim]] = {}
    for j, t, b, w in zip(PROJECTIONS, targets, proof.bias, proof.w, strict=True):
        weights[f"w_{j}"] = [Claim((*point, *t.col), w)]
        weights[f"b_{j}"] = [Claim(t.col, b)]
    return x_claims, weights


def prove_projection(
    x_rows: Sequence[QM31Array],
    targets: Sequence[Target],
    weights: Mapping[str, np.ndarray],
    channel: Channel,
) -> tuple[QkvProof, list[QM31]]:
    """x_rows[i] = X(rows[i], ·) (length ê); weights canonical and padded. Returns the proof
    and the sum-check's point r."""
    bias = [evaluate(weights[f"b_{j}"], t.col) for j, t in zip(PROJECTIONS, targets, strict=True)]
    channel.mix_felts(bias)
    lambdas = [QM31.one(), *channel.draw_secure_felts(len(PROJECTIONS) - 1)]
    w_cols = [
        col_combination(weights[f"w_{j}"], eq_table(t.col))
        for j, t in zip(PROJECTIONS, targets, strict=True)
    ]
    products = [
        Product((t.row, len(x_rows) + i), lam)
        for i, (t, lam) in enumerate(zip(targets, lambdas, strict=True))
    ]
    sumcheck, point, finals = prove_sumcheck([*x_rows, *w_cols], products, channel)
    proof = QkvProof(bias, sumcheck, finals[: len(x_rows)], finals[len(x_rows) :])
    channel.mix_felts([*proof.x, *proof.w])
    return proof, point


def prove_qkv(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[QkvProof, LayerClaims]:
    rows, targets = output_targets(outputs, tensor_vars(st.dims[:1]))
    x = embed(pad_tensor(st.inputs["x"]))
    x_rows = [row_combination(eq_table(a), x) for a in rows]
    proof, point = prove_projection(x_rows, targets, canonical(st.weights), channel)
    x_claims, weights = projection_claims(rows, targets, point, proof)
    return proof, LayerClaims({"x": x_claims}, weights)
