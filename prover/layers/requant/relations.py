"""The requant proof's two lookup relations and its witness layout, written once for the
prover (on columns) and the verifier (on claimed values and closed forms).

RANGE: r0, r1 and r1 + δ ∈ [0, 2^⌈k/2⌉) (so r1 < 2^⌊k/2⌋ and r = r0 + 2^⌈k/2⌉·r1 < 2^k exactly);
CLAMP: (y', y) ∈ {(q(i), clamp(q(i), ±C))} with q(i) = clamp(i + y'_lo, y'_lo, y'_hi), the
admissible quotients (rows past y'_hi repeat it). Instances, in this order: RANGE witness
(σ ∈ {0,1}², x: r0, r1, r1 + δ, then 0), CLAMP witness (x), RANGE table, CLAMP table
(docs/layers/requant.md, "Relations").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.requant.params import RequantParams
from cairn.prover.layers.requant.proof import RequantColumns
from cairn.prover.layers.requant.structured import clamp_mle
from cairn.prover.mle import eq_eval, hypercube_point
from cairn.prover.pcs.stack import StackLayout, stack_claims
from cairn.prover.softmax.relations import STACK_VARS, Key
from cairn.prover.softmax.structured import index_mle

TAG = "cairn/requant/v1"
STACKS = "requant"  # the statement names the witness stacks requant.0, requant.1, …
"""The domain tag of the Blake2s sub-transcript forked from the walk."""
WITNESS, TABLE = (0, 1), (2, 3)
BALANCED = tuple(([w], [t]) for w, t in zip(WITNESS, TABLE, strict=True))
ENTRY_COLUMNS = ("r0", "r1", "yq", "y")
RANGE_SLOTS = 2
"""The RANGE witness has 2^2 blocks of the entries: r0, r1, r1 + δ, and a block of zeros."""


@dataclass(frozen=True)
class Relations:
    """key_R(v) = α_R − v; key_C(y', y) = α_C − y' − β_C·y (independent challenges)."""

    range: Key
    clamp: Key

    @staticmethod
    def draw(channel: Channel) -> Relations:
        """α_R, α_C, β_C, in that order."""
        c = channel.draw_secure_felts(3)
        return Relations(Key(c[0], ()), Key(c[1], (c[2],)))

    def witness_denominators(
        self, p: RequantParams, cols: dict[str, np.ndarray]
    ) -> list[QM31Array]:
        """Every witness leaf's key: the RANGE blocks, then (y', y) per entry."""
        r0, r1 = cols["r0"].ravel(), cols["r1"].ravel()
        blocks = np.concatenate([r0, r1, r1 + p.delta, np.zeros_like(r0)])
        return [
            self.range.of(QM31Array.from_signed(blocks)),
            self.clamp.of(QM31Array.from_signed(cols["yq"]), QM31Array.from_signed(cols["y"])),
        ]

    def witness_keys_at(
        self, p: RequantParams, range_point: Sequence[QM31], cols: RequantColumns
    ) -> list[QM31]:
        """The same keys' MLEs: the RANGE point is (σ, ρ) and its leaf MLE the σ-combination
        of r̃0(ρ), r̃1(ρ), r̃1(ρ) + δ and 0."""
        sigma = range_point[:RANGE_SLOTS]
        blocks = (cols.r0, cols.r1, cols.r1 + QM31.from_int(p.delta))
        value = sum(
            (eq_eval(sigma, hypercube_point(i, RANGE_SLOTS)) * v for i, v in enumerate(blocks)),
            QM31.zero(),
        )
        return [self.range.of(value), self.clamp.of(cols.yq, cols.y)]

    def table_denominators(self, p: RequantParams) -> list[QM31Array]:
        """The tables' keys on every row."""
        lo, hi = p.quotient_range
        q = np.minimum(np.arange(1 << p.table_bits) + lo, hi)
        y = np.clip(q, -p.clamp, p.clamp)
        return [
            self.range.of(QM31Array.from_signed(np.arange(1 << p.lo_bits))),
            self.clamp.of(QM31Array.from_signed(q), QM31Array.from_signed(y)),
        ]

    def table_keys_at(self, p: RequantParams, points: Sequence[Sequence[QM31]]) -> list[QM31]:
        """The same keys' MLEs in closed form (structured.clamp_mle): clamp(clamp(v, lo, hi),
        ±C) = clamp(v, max(lo, −C), min(hi, C)) since both intervals contain 0."""
        range_point, clamp_point = points
        lo, hi = p.quotient_range
        q = clamp_mle(clamp_point, -lo, lo, hi)
        y = clamp_mle(clamp_point, -lo, max(lo, -p.clamp), min(hi, p.clamp))
        return [self.range.of(index_mle(range_point)), self.clamp.of(q, y)]


def instance_vars(n: int, p: RequantParams) -> list[int]:
    """Variables of each instance for 2^n entries."""
    return [n + RANGE_SLOTS, n, p.lo_bits, p.table_bits]


def column_vars(n: int, p: RequantParams) -> dict[str, int]:
    """The witness columns and their variables: r0, r1, y', y (2^n each), the multiplicities."""
    return dict.fromkeys(ENTRY_COLUMNS, n) | {"m_range": p.lo_bits, "m_clamp": p.table_bits}


def witness_layout(n: int, p: RequantParams) -> StackLayout:
    """The columns of `column_vars`, stacked."""
    return StackLayout.of(column_vars(n, p), STACK_VARS)


def column_claims(points: Sequence[Sequence[QM31]], cols: RequantColumns) -> dict[str, list[Claim]]:
    """What the LogUp leaves claim of the witness columns: r0, r1, y', y at ρ (the CLAMP
    witness point), each multiplicity at its table's point."""
    rho = tuple(points[1])
    at_rho = dict(zip(ENTRY_COLUMNS, (cols.r0, cols.r1, cols.yq, cols.y), strict=True))
    claims = {name: [Claim(rho, v)] for name, v in at_rho.items()}
    claims["m_range"] = [Claim(tuple(points[2]), cols.m_range)]
    claims["m_clamp"] = [Claim(tuple(points[3]), cols.m_clamp)]
    return claims


def opening_claims(
    n: int,
    p: RequantParams,
    points: Sequence[Sequence[QM31]],
    cols: RequantColumns,
    y_claim: Claim,
) -> dict[str, list[Claim]]:
    """What the walk's witness opening proves, by stack: the column claims, and y at the
    walk's output point (this ties the committed y to the public one)."""
    claims = column_claims(points, cols)
    claims["y"].append(y_claim)
    return stack_claims(STACKS, witness_layout(n, p), claims)


def input_value(p: RequantParams, cols: RequantColumns) -> QM31:
    """x̃(ρ) = (2^k·ỹ'(ρ) + r̃0(ρ) + 2^⌈k/2⌉·r̃1(ρ) − 2^(k−1))·M⁻¹: linear in the columns."""
    r = cols.r0 + cols.r1 * (1 << p.lo_bits)
    value = cols.yq * (1 << p.shift) + r - QM31.from_int(p.half)
    return value * QM31.from_int(p.multiplier).inverse()
