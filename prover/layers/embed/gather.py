"""The gather relation, written once for both sides (docs/layers/embed.md, "Protocol").

From the output claim ỹ(r_i, r_c) = y, with every table T_t (the word blocks, then position):

  ỹ(r_i, r_c) = Σ_t Σ_{v ∈ {0,1}^{n_t}} sel_t(v)·T̃_t(v, r_c),
  sel_t(v) = Σ_{i < s reading row v of T_t} eq(r_i, i),

token i reading row ids_i − start of its word block and row i of position. One degree-2
sum-check proves it over n = max n_t variables; table t's product is read on the last n_t of
them (prover/sumcheck: a smaller MLE counts 2^(n − n_t) times, so its coefficient is
2^−(n − n_t)). The verifier evaluates sel_t at the final point from the public ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.embed.model import block_name, token_ids, weight_shapes
from cairn.prover.mle import binary, inverse_pow2, log2_exact, next_pow2
from cairn.prover.sumcheck.prover import Product

DEGREE = 2


@dataclass(frozen=True)
class Table:
    """One gathered table: its weight name, MLE row variables, and which tokens read which
    of its rows (local row -> token indices)."""

    name: str
    n_vars: int
    reads: dict[int, tuple[int, ...]]


def _reads(pairs: Sequence[tuple[int, int]]) -> dict[int, tuple[int, ...]]:
    out: dict[int, list[int]] = {}
    for token, row in pairs:
        out.setdefault(row, []).append(token)
    return {row: tuple(tokens) for row, tokens in sorted(out.items())}


@dataclass(frozen=True)
class Gather:
    """The tables in proof order (word_0, word_1, …, position) and log ŝ, from the dims."""

    tables: tuple[Table, ...]
    row_vars: int

    @staticmethod
    def of(dims: Sequence[int]) -> Gather:
        s, block_rows = dims[0], dims[2]
        shapes = weight_shapes(dims)  # word_0, word_1, …, then position
        reads: dict[str, list[tuple[int, int]]] = {name: [] for name in shapes}
        for i, v in enumerate(token_ids(dims)):
            reads[block_name(v // block_rows)].append((i, v % block_rows))
        reads["position"] = [(i, i) for i in range(s)]
        tables = tuple(
            Table(name, log2_exact(next_pow2(shape[0])), _reads(reads[name]))
            for name, shape in shapes.items()
        )
        return Gather(tables, log2_exact(next_pow2(s)))

    @property
    def n_vars(self) -> int:
        return max(t.n_vars for t in self.tables)

    def coeff(self, t: Table) -> QM31:
        return inverse_pow2(self.n_vars - t.n_vars)

    def products(self) -> list[Product]:
        """Table t's selector and column combination are MLEs 2t and 2t + 1."""
        return [Product((2 * k, 2 * k + 1), self.coeff(t)) for k, t in enumerate(self.tables)]

    def tail(self, t: Table, point: Sequence[QM31]) -> tuple[QM31, ...]:
        """The coordinates table t is read on: the last n_t of the sum-check's point."""
        return tuple(point[len(point) - t.n_vars :])

    def selector_table(self, t: Table, token_eq: QM31Array) -> QM31Array:
        """sel_t on {0,1}^{n_t} (prover), token_eq[i] = eq(r_i, i)."""
        out = np.zeros((1 << t.n_vars, 4), dtype=np.int64)
        for row, tokens in t.reads.items():
            out[row] = token_eq.data[list(tokens)].sum(axis=0)
        return QM31Array(out % P)

    def selector_at(self, t: Table, token_eq: Sequence[QM31], z: Sequence[QM31]) -> QM31:
        """sel̃_t(z) in O(#rows read · n_t) (verifier)."""
        one = QM31.one()
        total = QM31.zero()
        for row, tokens in t.reads.items():
            weight = QM31.zero()
            for i in tokens:
                weight = weight + token_eq[i]
            for bit, r in zip(binary(row, t.n_vars), z, strict=True):
                weight = weight * (r if bit else one - r)
            total = total + weight
        return total

    def final_value(
        self, point: Sequence[QM31], token_eq: Sequence[QM31], values: Sequence[QM31]
    ) -> QM31:
        """What the sum-check's last claim must equal: Σ_t coeff_t·sel̃_t(z_t)·T̃_t(z_t, r_c)."""
        total = QM31.zero()
        for t, v in zip(self.tables, values, strict=True):
            z = self.tail(t, point)
            total = total + self.coeff(t) * self.selector_at(t, token_eq, z) * v
        return total

    def claims(
        self, point: Sequence[QM31], r_c: Sequence[QM31], values: Sequence[QM31]
    ) -> dict[str, list[Claim]]:
        """One claim per table: T̃_t(z_t, r_c) = value."""
        return {
            t.name: [Claim((*self.tail(t, point), *r_c), v)]
            for t, v in zip(self.tables, values, strict=True)
        }
