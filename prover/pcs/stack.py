"""Several columns committed as one polynomial (docs/pcs.md, "Stacked columns").

A protocol that commits many witness columns of power-of-two sizes (limbs, flags, shifts,
multiplicities) commits one stack instead: the columns sit at offsets aligned to their own
size, largest first, and the rest is zero. Column c of 2^n_c values at offset o_c is then the
restriction of the stack's MLE to the prefix bits(o_c >> n_c), so a claim c~(π) = v is the
claim stack~(bits(o_c >> n_c) ‖ π) = v. The layout is a function of the column sizes alone,
which the verifier derives from the statement: no offset is ever read from a proof.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
from cairn.prover.mle import hypercube_point, log2_exact, next_pow2


@dataclass(frozen=True)
class StackLayout:
    """Where each named column sits: offsets and sizes (log2), and the stack's variables."""

    offsets: dict[str, int]
    sizes: dict[str, int]
    n_vars: int

    @staticmethod
    def of(column_vars: Mapping[str, int]) -> StackLayout:
        """Largest columns first (ties by name), each at the next offset; every offset is then
        a multiple of its column's size because all sizes are powers of two."""
        order = sorted(column_vars, key=lambda name: (-column_vars[name], name))
        offsets, at = {}, 0
        for name in order:
            offsets[name] = at
            at += 1 << column_vars[name]
        return StackLayout(offsets, dict(column_vars), log2_exact(next_pow2(max(at, 1))))

    def point(self, name: str, point: Sequence[QM31]) -> tuple[QM31, ...]:
        """The stack's point at which it equals column `name`'s MLE at `point`."""
        n = self.sizes[name]
        if len(point) != n:
            raise ValueError(f"column {name!r} has {n} variables, not {len(point)}")
        prefix = hypercube_point(self.offsets[name] >> n, self.n_vars - n)
        return (*prefix, *point)

    def claims(self, claims: Mapping[str, Sequence[Claim]]) -> list[Claim]:
        """Claims on columns, as claims on the stack (in name order)."""
        return [
            Claim(self.point(name, c.point), c.value)
            for name in sorted(claims)
            for c in claims[name]
        ]

    def pack(self, columns: Mapping[str, np.ndarray]) -> np.ndarray:
        """The stack's canonical M31 values from signed-integer columns of the layout's sizes."""
        if set(columns) != set(self.sizes):
            raise ValueError(f"columns {sorted(columns)} do not match {sorted(self.sizes)}")
        out = np.zeros(1 << self.n_vars, dtype=np.int64)
        for name, values in columns.items():
            flat = np.asarray(values).ravel()
            if len(flat) != 1 << self.sizes[name]:
                raise ValueError(f"column {name!r} must hold 2^{self.sizes[name]} values")
            out[self.offsets[name] : self.offsets[name] + len(flat)] = embed(flat)
        return out
