"""The gelu proof's lookup relation and its witness layout, written once for the prover (on
columns) and the verifier (on claimed values and the table's MLE).

GELU: (x, y) ∈ {(g, T[g + 2^(b_in−1)]) : −2^(b_in−1) ≤ g < 2^(b_in−1)}, one row per input of
b_in signed bits. Instances, in this order: the witness (one leaf per padded entry), the table
(one leaf per row, numerators the multiplicities) (docs/layers/gelu.md, "Relation").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.gelu.params import GeluParams
from cairn.prover.layers.gelu.proof import GeluColumns
from cairn.prover.layers.gelu.table import table_name
from cairn.prover.pcs.stack import StackLayout, stack_claims
from cairn.prover.softmax.relations import STACK_VARS, Key
from cairn.prover.softmax.structured import index_mle

TAG = "cairn/gelu/v1"
"""The domain tag of the Blake2s sub-transcript forked from the walk."""
STACKS = "gelu"  # the statement names the witness stacks gelu.0, gelu.1, …
WITNESS, TABLE = 0, 1
BALANCED = (([WITNESS], [TABLE]),)


@dataclass(frozen=True)
class Lookup:
    """key(x, y) = α − x − β·y (α, β independent challenges)."""

    key: Key

    @staticmethod
    def draw(channel: Channel) -> Lookup:
        """α, β, in that order."""
        alpha, beta = channel.draw_secure_felts(2)
        return Lookup(Key(alpha, (beta,)))

    def witness_denominators(self, x: np.ndarray, y: np.ndarray) -> QM31Array:
        """Every padded entry's key, from the padded x and y."""
        return self.key.of(QM31Array.from_signed(x), QM31Array.from_signed(y))

    def witness_key_at(self, cols: GeluColumns) -> QM31:
        """The same keys' MLE at ρ: linear in x̃(ρ) and ỹ(ρ)."""
        return self.key.of(cols.x, cols.y)

    def table_denominators(self, p: GeluParams) -> QM31Array:
        """Every table row's key: row i holds (i − 2^(b_in−1), T[i])."""
        g = np.arange(-p.offset, p.offset, dtype=np.int64)
        return self.key.of(QM31Array.from_signed(g), QM31Array.from_signed(p.table()))

    def table_key_at(self, p: GeluParams, point: Sequence[QM31], t: QM31) -> QM31:
        """The same keys' MLE: the input column is index_mle − 2^(b_in−1) (Σ eq = 1), the
        output column the sent T̃(point), which the witness opening checks against the
        pinned table."""
        g = index_mle(point) - QM31.from_int(p.offset)
        return self.key.of(g, t)


def instance_vars(n: int, p: GeluParams) -> list[int]:
    """Variables of each instance for 2^n entries: the witness, then the table."""
    return [n, p.b_in]


def witness_layout(n: int, p: GeluParams) -> StackLayout:
    """y (2^n) and the multiplicities m (2^b_in), stacked."""
    return StackLayout.of({"y": n, "m": p.b_in}, STACK_VARS)


def opening_claims(
    n: int,
    p: GeluParams,
    points: Sequence[Sequence[QM31]],
    cols: GeluColumns,
    y_claim: Claim,
) -> dict[str, list[Claim]]:
    """What the walk's witness opening proves, by stack and table: y at ρ and at the walk's
    output point (this ties the committed y to the walk's y), m and the pinned table T at the
    table's point."""
    claims = {
        "y": [Claim(tuple(points[WITNESS]), cols.y), y_claim],
        "m": [Claim(tuple(points[TABLE]), cols.m)],
    }
    table = {table_name(p.key): [Claim(tuple(points[TABLE]), cols.t)]}
    return stack_claims(STACKS, witness_layout(n, p), claims) | table
