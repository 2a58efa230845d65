"""X·W_j + 1·B_jᵀ for one input X and one or more (W_j, B_j): the relation matmul (no bias),
linear, qkv and qkv-decode share (docs/layers/linear.md). `Projections` names the tensors and
the checks of one such batch; both the prover and the verifier drive it, so the order of the
projections, the λ-batching, the row mask and the claims left behind are written once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed, max_magnitude
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.linear.proof import DEGREE, ProjectionProof
from cairn.prover.linalg import exact_matmul
from cairn.prover.mle import (
    col_combination,
    eq_table,
    evaluate,
    pad_tensor,
    prefix_mask,
    row_combination,
    tensor_vars,
)
from cairn.prover.ranges import Relation, Tensors, product_bound
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.sumcheck.verifier import verify_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes


@dataclass(frozen=True)
class Target:
    """The claim O_j(rows[row], col) = value on projection j's output (in the batch's order)."""

    row: int
    col: tuple[QM31, ...]
    value: QM31


@dataclass(frozen=True)
class Projections:
    """Outputs O_j = X·W_j + 1·B_jᵀ (X: s × e, W_j: e × h, B_j: h) of the input `x`.

    `outputs[j]` names O_j and `weights[j]` = (W_j, B_j), B_j None for no bias (matmul); the
    order fixes the bias order and λ_j in the transcript. `kind` is the layer kind whose
    statement this is and prefixes the checks (`<kind>.final_evaluation`; qkv-decode's steps
    run qkv's). `input` names X in the statement."""

    kind: str
    outputs: tuple[str, ...]
    weights: tuple[tuple[str, str | None], ...]
    input: str = "x"

    @property
    def biases(self) -> list[str]:
        """The B_j there are, in the batch's order (the order of `ProjectionProof.bias`)."""
        return [b for _, b in self.weights if b is not None]

    def weight_shapes(self, e: int, h: int) -> dict[str, tuple[int, ...]]:
        """Every W_j: e × h, then every B_j: h (a vector)."""
        return {w: (e, h) for w, _ in self.weights} | {b: (h,) for b in self.biases}

    def relations(self) -> tuple[Relation, ...]:
        """Per projection, |x·w_j + b_j| ≤ product_bound(x, w_j) + max|b_j|: monotone in the
        operands' magnitudes, and a bound on O_j's entries (docs/layers/linear.md)."""
        return tuple(
            _relation(self.input, w, b, out)
            for out, (w, b) in zip(self.outputs, self.weights, strict=True)
        )

    def as_weights(self, weights: Mapping[str, np.ndarray], e: int) -> dict[str, np.ndarray]:
        """Signed int64 copies of the weights; ValueError on a wrong name, shape or range."""
        ws = {name: np.asarray(w, dtype=np.int64) for name, w in weights.items()}
        first = self.weights[0][0]
        if first not in ws or ws[first].ndim != 2:
            raise ValueError(f"the weights need {first}: e × h")
        shapes = self.weight_shapes(e, ws[first].shape[1])
        got = {name: w.shape for name, w in ws.items()}
        if got != shapes:
            raise ValueError(f"weights must have the shapes {shapes}; got {got}")
        for w in ws.values():
            embed(w)  # raises if an entry leaves the signed M31 range
        return ws

    def forward(self, x: np.ndarray, weights: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """X·W_j + 1·B_jᵀ over the integers, per output (exact; ValueError outside M31)."""
        embed(x)
        out = {}
        for name, (w, b) in zip(self.outputs, self.weights, strict=True):
            out[name] = exact_matmul(x, weights[w]) + (weights[b] if b else 0)
            embed(out[name])
        return out

    def make_statement(self, x: np.ndarray, weights: Mapping[str, np.ndarray]) -> Statement:
        """x (named `input`): s × e tokens; the weights by name. dims = (s, e, h).

        The outputs are exactly s × h; their MLEs are zero on the padded rows like every
        tensor's, so the verifier weighs the bias by the row mask (docs/layers/linear.md)."""
        x = np.asarray(x, dtype=np.int64)
        if x.ndim != 2:
            raise ValueError(f"{self.kind} needs x: s × e; got shape {x.shape}")
        ws = self.as_weights(weights, x.shape[1])
        (s, e), h = x.shape, ws[self.weights[0][0]].shape[1]
        return Statement(self.kind, (s, e, h), {self.input: x}, self.forward(x, ws), ws)

    def check(self, st: Statement) -> None:
        """Shapes from dims (s, e, h) and the projections' no-wrap bounds; reads no value
        except through the monotone bounds."""
        if len(st.dims) != 3 or min(st.dims) < 1:
            raise VerificationError(
                "statement.shape", f"{self.kind} dims (s, e, h) invalid: {st.dims}"
            )
        s, e, h = st.dims
        expect_shapes(st, "inputs", {self.input: (s, e)})
        expect_shapes(st, "outputs", {name: (s, h) for name in self.outputs})
        expect_shapes(st, "weights", self.weight_shapes(e, h))
        expect_ranges(st, self.relations())

    def split(
        self, outputs: Mapping[str, Claim], row_vars: int
    ) -> tuple[list[tuple[QM31, ...]], list[Target]]:
        """Split each output claim's point into its row point a_j and column point c_j."""
        rows = [outputs[name].point[:row_vars] for name in self.outputs]
        targets = [
            Target(i, outputs[name].point[row_vars:], outputs[name].value)
            for i, name in enumerate(self.outputs)
        ]
        return rows, targets

    def claims(
        self,
        rows: Sequence[tuple[QM31, ...]],
        targets: Sequence[Target],
        point: Sequence[QM31],
        proof: ProjectionProof,
    ) -> tuple[list[Claim], dict[str, list[Claim]]]:
        """The claims the sum-check leaves: X(a, r) per row point, W_j(r, c_j) and B_j(c_j)."""
        x_claims = [Claim((*a, *point), v) for a, v in zip(rows, proof.x, strict=True)]
        weights: dict[str, list[Claim]] = {}
        bias = iter(proof.bias)
        for (w, b), t, w_value in zip(self.weights, targets, proof.w, strict=True):
            weights[w] = [Claim((*point, *t.col), w_value)]
            if b is not None:
                weights[b] = [Claim(t.col, next(bias))]
        return x_claims, weights


def _relation(x: str, w: str, b: str | None, out: str) -> Relation:
    def bound(t: Tensors, _: Sequence[int]) -> int:
        return product_bound(t[x], t[w]) + (max_magnitude(t[b]) if b else 0)

    if b is None:
        return Relation(f"{x}·{w}", (x, w), bound, result=out)
    return Relation(f"{x}·{w} + {b}", (x, w, b), bound, result=out)


def canonical(tensors: Tensors) -> dict[str, np.ndarray]:
    """Zero-padded canonical M31 tables, as the MLEs read them."""
    return {name: embed(pad_tensor(t)) for name, t in tensors.items()}


def prove_projection(
    proj: Projections,
    x_rows: Sequence[QM31Array],
    targets: Sequence[Target],
    weights: Mapping[str, np.ndarray],
    inner: int,
    channel: Channel,
) -> tuple[ProjectionProof, list[QM31]]:
    """x_rows[i] = X(rows[i], ·) (length ê, `inner` = e of them true); weights canonical and
    padded. Returns the proof and the sum-check's point r."""
    pairs = list(zip(proj.weights, targets, strict=True))
    bias = [evaluate(weights[b], t.col) for (_, b), t in pairs if b is not None]
    channel.mix_felts(bias)
    lambdas = [QM31.one(), *channel.draw_secure_felts(len(pairs) - 1)]
    w_cols = [col_combination(weights[w], eq_table(t.col)) for (w, _), t in pairs]
    mask = QM31Array.from_base(np.arange(len(x_rows[0])) < inner)
    m = len(x_rows) + len(w_cols)
    products = [
        Product((t.row, len(x_rows) + i, m), lam)
        for i, (t, lam) in enumerate(zip(targets, lambdas, strict=True))
    ]
    sumcheck, point, finals = prove_sumcheck([*x_rows, *w_cols, mask], products, channel)
    proof = ProjectionProof(bias, sumcheck, finals[: len(x_rows)], finals[len(x_rows) : m])
    channel.mix_felts([*proof.x, *proof.w])
    return proof, point


def verify_projection(
    proj: Projections,
    proof: ProjectionProof,
    targets: Sequence[Target],
    masks: Sequence[QM31],
    inner: int,
    channel: Channel,
) -> list[QM31]:
    """The mirror; masks[i]: the bias rows' mask at row point i; `inner` = e. Returns the
    sum-check's point r."""
    count = len(proj.outputs)
    for name, values, want in (
        ("bias", proof.bias, len(proj.biases)),
        ("x", proof.x, len(masks)),
        ("w", proof.w, count),
    ):
        if len(values) != want:
            raise VerificationError(f"{proj.kind}.value_count", f"{name}: {len(values)} != {want}")
    channel.mix_felts(proof.bias)
    lambdas = [QM31.one(), *channel.draw_secure_felts(count - 1)]
    claim = QM31.zero()
    bias = iter(proof.bias)
    for lam, t, (_, b) in zip(lambdas, targets, proj.weights, strict=True):
        term = t.value - masks[t.row] * next(bias) if b else t.value
        claim = claim + lam * term
    n_vars = tensor_vars((inner,))
    point, final = verify_sumcheck(claim, proof.sumcheck, n_vars, DEGREE, channel)
    channel.mix_felts([*proof.x, *proof.w])
    expected = QM31.zero()
    for lam, t, w in zip(lambdas, targets, proof.w, strict=True):
        expected = expected + lam * proof.x[t.row] * w
    if final != expected * prefix_mask(point, inner):
        raise VerificationError(
            f"{proj.kind}.final_evaluation", "M(r)·Σ λ_j X(a_j, r)·W_j(r, c_j) differs"
        )
    return point


def prove_layer(
    proj: Projections, st: Statement, outputs: dict[str, Claim], channel: Channel
) -> tuple[ProjectionProof, LayerClaims]:
    """A layer of dims (s, e, h) whose outputs are exactly `proj`'s: O(s·e + e·h) field work,
    X(a_j, ·) a row combination of X̂ and W_j(·, c_j) a column combination of Ŵ_j on BLAS."""
    rows, targets = proj.split(outputs, tensor_vars(st.dims[:1]))
    x = embed(pad_tensor(st.inputs[proj.input]))
    x_rows = [row_combination(eq_table(a), x) for a in rows]
    weights = canonical(st.weights)
    proof, point = prove_projection(proj, x_rows, targets, weights, st.dims[1], channel)
    x_claims, weights = proj.claims(rows, targets, point, proof)
    return proof, LayerClaims({proj.input: x_claims}, weights)


def verify_layer(
    proj: Projections,
    st: Statement,
    proof: ProjectionProof,
    outputs: dict[str, Claim],
    channel: Channel,
) -> LayerClaims:
    """The mirror of prove_layer from the dims alone: O(log s + log e + log h) field work."""
    s, e, _ = st.dims
    rows, targets = proj.split(outputs, tensor_vars((s,)))
    masks = [prefix_mask(a, s) for a in rows]
    point = verify_projection(proj, proof, targets, masks, e, channel)
    x_claims, weights = proj.claims(rows, targets, point, proof)
    return LayerClaims({proj.input: x_claims}, weights)
