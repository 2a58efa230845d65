"""Decode prover: per step O(l·h + e·h) field work (docs/layers/kvcache.md).

The concatenation sum-check runs on tables of l̂·ĥ entries (eq(r_K), eq(r_V), the one-hot
pad vector, k_t and v_t broadcast over the rows); the projection on one row of X is the QKV
layer's sum-check with column combinations of the weights on BLAS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.kvcache.model import CACHES
from cairn.prover.layers.kvcache.proof import ConcatProof, DecodeProof, StepProof
from cairn.prover.layers.linear.projection import Target, canonical, prove_projection
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.qkv.model import QKV
from cairn.prover.mle import (
    col_combination,
    eq_eval,
    eq_table,
    evaluate,
    hypercube_point,
    pad_tensor,
    tensor_vars,
)
from cairn.prover.padding import EmptyRowsProof, prove_empty_rows
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sameply.prover import prove_sameply
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement

SPLIT = ("q", *CACHES)


def cache_claims(out: Claim, value: QM31, pending: Claim | None, step_vars: int) -> list[Claim]:
    """The claims on K_t: its share of the output claim, and step t + 1's claim on K_prev."""
    return [Claim(out.point[step_vars:], value), *([pending] if pending else [])]


def new_row_targets(
    q: Claim,
    q_value: QM31,
    concat: ConcatProof,
    point: Sequence[QM31],
    row_vars: int,
    step_vars: int,
) -> list[Target]:
    """The projection's claims on one row: q_t at the output's column point, k_t and v_t at r_h."""
    r_h = tuple(point[row_vars:])
    return [
        Target(0, q.point[step_vars:], q_value),
        Target(0, r_h, concat.k_value),
        Target(0, r_h, concat.v_value),
    ]


@dataclass
class Chain:
    """What the steps leave behind, in proving order (T down to 1): claims on the rows of x and
    on the weights, and the claims on K_{t−1}, V_{t−1} handed to the step before."""

    step_vars: int
    x: list[Claim] = field(default_factory=list)
    weights: dict[str, list[Claim]] = field(default_factory=dict)
    pending: dict[str, Claim] = field(default_factory=dict)

    def close_step(
        self,
        t: int,
        merged: Mapping[str, Claim],
        concat: ConcatProof,
        targets: Sequence[Target],
        point: Sequence[QM31],
        projection: ProjectionProof,
    ) -> None:
        self.pending = {
            "k": Claim(merged["k"].point, concat.k_prev),
            "v": Claim(merged["v"].point, concat.v_prev),
        }
        row = hypercube_point(t, self.step_vars)
        x_claims, weights = QKV.claims([row], targets, point, projection)
        self.x.extend(x_claims)
        for name, claims in weights.items():
            self.weights.setdefault(name, []).extend(claims)

    def layer_claims(self) -> LayerClaims:
        """Step 1's claims on K_0, V_0 are claims on the public initial caches."""
        inputs = {"x": self.x} | {f"{j}0": [self.pending[j]] for j in CACHES}
        return LayerClaims(inputs, self.weights)


def prove_concat(
    merged: Mapping[str, Claim],
    prev: Mapping[str, np.ndarray],
    new: Mapping[str, np.ndarray],
    pos: int,
    channel: Channel,
) -> tuple[ConcatProof, list[QM31]]:
    """prev[j]: K_{t−1} (l̂ × ĥ), new[j]: k_t (ĥ), canonical. Returns the proof and (r_l, r_h)."""
    rows, cols = prev["k"].shape
    row_vars = tensor_vars((rows,))
    pad = hypercube_point(pos, row_vars)
    values = []
    for j in CACHES:
        r = merged[j].point
        values += [
            evaluate(prev[j].ravel(), r),
            eq_eval(r[:row_vars], pad) * evaluate(new[j], r[row_vars:]),
        ]
    channel.mix_felts(values)
    lam = channel.draw_secure_felt()
    one_hot = np.zeros(rows, dtype=np.int64)
    one_hot[pos] = 1
    mles = [
        eq_table(merged["k"].point),
        eq_table(merged["v"].point),
        QM31Array.from_base(np.repeat(one_hot, cols)),
        QM31Array.from_base(np.tile(new["k"], rows)),
        QM31Array.from_base(np.tile(new["v"], rows)),
    ]
    products = [Product((0, 2, 3)), Product((1, 2, 4), lam)]
    sumcheck, point, finals = prove_sumcheck(mles, products, channel)
    concat = ConcatProof(*values, sumcheck, finals[3], finals[4])
    channel.mix_felts([concat.k_value, concat.v_value])
    return concat, point


def has_committed_cache(st: Statement) -> bool:
    """Whether the proof shows the initial caches' empty rows are zero (`EmptyRowsProof`): the
    check cannot read a committed cache."""
    return any(f"{j}0" in st.committed for j in CACHES)


def prove_decode(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[DecodeProof, LayerClaims]:
    steps, context, e, _, s0 = st.dims
    step_vars, row_vars = tensor_vars((steps,)), tensor_vars((context,))
    tables = canonical(st.outputs)
    initial = {j: embed(pad_tensor(st.inputs[f"{j}0"])) for j in CACHES}
    x = embed(pad_tensor(st.inputs["x"]))
    weights = canonical(st.weights)
    split = {
        name: col_combination(
            tables[name].reshape(len(tables[name]), -1), eq_table(outputs[name].point[step_vars:])
        ).to_list()[:steps]
        for name in SPLIT
    }
    channel.mix_felts([v for name in SPLIT for v in split[name]])
    chain = Chain(step_vars)
    step_proofs: list[StepProof] = []
    for t in reversed(range(steps)):
        merges: dict[str, SamePolyProof | None] = {}
        merged: dict[str, Claim] = {}
        for j in CACHES:
            claims = cache_claims(outputs[j], split[j][t], chain.pending.get(j), step_vars)
            table = QM31Array.from_base(tables[j][t].ravel())
            merges[j], merged[j] = prove_sameply(table, claims, channel)
        prev = {j: tables[j][t - 1] if t else initial[j] for j in CACHES}
        new = {j: tables[j][t, s0 + t] for j in CACHES}
        concat, point = prove_concat(merged, prev, new, s0 + t, channel)
        targets = new_row_targets(outputs["q"], split["q"][t], concat, point, row_vars, step_vars)
        x_row = QM31Array.from_base(x[t])
        projection, z = prove_projection(QKV, [x_row], targets, weights, e, channel)
        chain.close_step(t, merged, concat, targets, z, projection)
        step_proofs.append(StepProof(merges["k"], merges["v"], concat, projection))
    claims = chain.layer_claims()
    empty_rows = None
    if has_committed_cache(st):
        empty_rows, point = prove_empty_rows([initial[j] for j in CACHES], s0, channel)
        add_empty_rows_claims(claims, empty_rows, point)
    proof = DecodeProof(split["q"], split["k"], split["v"], step_proofs[::-1], empty_rows)
    return proof, claims


def add_empty_rows_claims(claims: LayerClaims, proof: EmptyRowsProof, point: list[QM31]) -> None:
    """K₀(p), V₀(p) join step 1's claims on the initial caches."""
    for j, value in zip(CACHES, proof.values, strict=True):
        claims.inputs[f"{j}0"].append(Claim(tuple(point), value))
