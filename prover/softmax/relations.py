"""The softmax proof's three lookup relations and its witness layout, written once for the
prover (on columns) and the verifier (on claimed values and closed forms).

EXP: (e, live, y) ∈ {(i, b, b·T[i])}; LIMB: (lo, hi, live) ∈ {(l, h, [h = 0])};
NORM: n ∈ [0, 2^k_n). Instances, in this order: the three witness sides, then the three tables
(docs/layers/attn.md, "Relations").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.mha.model import Dims
from cairn.prover.pcs.stack import StackLayout, stack_claims
from cairn.prover.softmax.params import EXP_BITS, SoftmaxParams
from cairn.prover.softmax.proof import ColumnValues
from cairn.prover.softmax.structured import index_mle, is_zero_mle, valid_rows_mle
from cairn.prover.softmax.tables import exp_table, exp_table_name

Col = TypeVar("Col", QM31, QM31Array)

WITNESS, TABLE = (0, 1, 2), (3, 4, 5)
BALANCED = tuple(([w], [t]) for w, t in zip(WITNESS, TABLE, strict=True))
"""Each relation: its witness instance against its table instance (lookups.check_balance)."""

ENTRY_COLUMNS = ("lo", "e", "hi", "live", "y")
STACKS = "softmax"  # the statement names the witness stacks softmax.0, softmax.1, …
STACK_VARS = 22
"""The largest stack: 2^22 values, where WITNESS_PCS proves 98.2 bits (docs/layers/attn.md,
"Soundness"); larger attention splits its columns over several stacks."""


@dataclass(frozen=True)
class Key:
    """key(c0, c1, …) = α − c0 − β1·c1 − …: a tuple's LogUp denominator. The β's are drawn
    independently (not powers of one challenge), so every key has total degree 1 in the
    challenges (docs/lookups.md, "Soundness")."""

    alpha: QM31
    betas: tuple[QM31, ...]

    def of(self, first: Col, *rest: Col) -> Col:
        acc = first
        for beta, col in zip(self.betas, rest, strict=True):
            acc = acc + col * beta
        return -acc + self.alpha


@dataclass(frozen=True)
class Relations:
    exp: Key
    limb: Key
    norm: Key

    @staticmethod
    def draw(channel: Channel) -> Relations:
        """α_E, β_E1, β_E2, α_L, β_L1, β_L2, α_N, in that order."""
        c = channel.draw_secure_felts(7)
        return Relations(Key(c[0], (c[1], c[2])), Key(c[3], (c[4], c[5])), Key(c[6], ()))


def instance_vars(dims: Dims, params: SoftmaxParams) -> list[int]:
    """Variables of each instance: entries (H + 2S) twice, (σ, row) for NORM, then the tables."""
    n = dims.h_vars + 2 * dims.s_vars
    limb = params.lo_bits + params.hi_bits
    return [n, n, 1 + dims.h_vars + dims.s_vars, 1 + EXP_BITS, limb, params.k_n]


def witness_layout(dims: Dims, params: SoftmaxParams) -> StackLayout:
    """The committed stacks: five entry columns, the row shifts z, three multiplicities, in
    stacks of at most 2^STACK_VARS values."""
    n_vars = instance_vars(dims, params)
    entries = dict.fromkeys(ENTRY_COLUMNS, n_vars[0])
    rows = {"z": dims.h_vars + dims.s_vars}
    return StackLayout.of(
        entries | rows | {"m_exp": n_vars[3], "m_limb": n_vars[4], "m_norm": n_vars[5]},
        STACK_VARS,
    )


def table_denominators(rel: Relations, params: SoftmaxParams) -> list[QM31Array]:
    """The tables' keys on every entry, indexed (b, i), (h, l) and n, MSB first."""
    i = np.tile(np.arange(1 << EXP_BITS), 2)
    b = np.repeat([0, 1], 1 << EXP_BITS)
    limb = np.arange(1 << (params.lo_bits + params.hi_bits))
    h, low = limb >> params.lo_bits, limb & ((1 << params.lo_bits) - 1)
    return [
        rel.exp.of(
            QM31Array.from_signed(i),
            QM31Array.from_signed(b),
            QM31Array.from_signed(b * exp_table(params.theta)[i]),
        ),
        rel.limb.of(
            QM31Array.from_signed(low), QM31Array.from_signed(h), QM31Array.from_signed(h == 0)
        ),
        rel.norm.of(QM31Array.from_signed(np.arange(1 << params.k_n))),
    ]


def table_keys_at(
    rel: Relations, params: SoftmaxParams, points: Sequence[Sequence[QM31]], table: QM31
) -> list[QM31]:
    """The same keys' MLEs at the tables' points, in closed form but for T̃ (`table`, opened
    from the fixed commitment): index MLEs, the bit b, and [h = 0]."""
    exp_point, limb_point, norm_point = points
    b, e = exp_point[0], exp_point[1:]
    h, low = limb_point[: params.hi_bits], limb_point[params.hi_bits :]
    return [
        rel.exp.of(index_mle(e), b, b * table),
        rel.limb.of(index_mle(low), index_mle(h), is_zero_mle(h)),
        rel.norm.of(index_mle(norm_point)),
    ]


def norm_at(dims: Dims, params: SoftmaxParams, point: Sequence[QM31], row_mean: QM31) -> QM31:
    """ñ(σ, ρ') for n_0 = R − v·(2^θ − ε), n_1 = v·(2^θ + ε) − R over the rows, where
    R̃(ρ') = 2^S·Ỹ(ρ', ½,…,½) (a row sum is ŝ times its mean) and ṽ the valid-row mask."""
    sigma, rows = point[0], point[1:]
    v = valid_rows_mle(dims.h, dims.s, rows)
    total = row_mean * (1 << dims.s_vars)
    low = total - v * ((1 << params.theta) - params.eps)
    high = v * ((1 << params.theta) + params.eps) - total
    return low + (high - low) * sigma


HALF = QM31.from_int(2).inverse()


def row_mean_point(dims: Dims, points: Sequence[Sequence[QM31]]) -> tuple[QM31, ...]:
    """(ρ', ½,…,½): Y's MLE there is the mean of each row, ρ' the NORM point's row part."""
    return (*points[2][1:], *[HALF] * dims.s_vars)


def opening_claims(
    dims: Dims,
    params: SoftmaxParams,
    points: Sequence[Sequence[QM31]],
    columns: ColumnValues,
    shift: Claim,
    a_claim: Claim,
) -> dict[str, list[Claim]]:
    """What the walk's witness opening proves, by stack and table: every column value at its
    point, Y at the row-mean point and at A·Ṽ's point, Z at the recomposition's row point (as
    claims on the stacks); and T̃ at the EXP table's index coordinates."""
    rho = tuple(points[0])
    at_rho = dict(zip(ENTRY_COLUMNS, columns.values(), strict=False))
    rows = dims.h_vars + dims.s_vars
    claims = {c: [Claim(rho, v)] for c, v in at_rho.items()}
    claims["y"] += [Claim(row_mean_point(dims, points), columns.row_mean), a_claim]
    claims["z"] = [Claim(shift.point[:rows], shift.value)]
    for name, point, value in zip(
        ("m_exp", "m_limb", "m_norm"),
        points[3:],
        (columns.m_exp, columns.m_limb, columns.m_norm),
        strict=True,
    ):
        claims[name] = [Claim(tuple(point), value)]
    table = {exp_table_name(params.theta): [Claim(tuple(points[3][1:]), columns.table)]}
    return stack_claims(STACKS, witness_layout(dims, params), claims) | table
