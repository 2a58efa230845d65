"""Many columns committed as a few polynomials (docs/pcs.md, "Stacked columns").

A protocol that commits many witness columns of power-of-two sizes (limbs, flags, shifts,
multiplicities) commits a few stacks instead of one polynomial per column: columns go, largest
first, into the first stack with room (first-fit decreasing), each at an offset aligned to its
own size, the rest zero. A stack holds at most 2^max_vars values, the largest polynomial the
PCS parameters prove at the target soundness. Column c of 2^n_c values at offset o_c of its
stack is the restriction of the stack's MLE to the prefix bits(o_c >> n_c), so a claim
c~(π) = v is the claim stack~(bits(o_c >> n_c) ‖ π) = v. The layout is a function of the
column sizes alone, which the verifier derives from the statement: no offset is ever read from
a proof.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
from cairn.prover.merkle.hashers import get_hash
from cairn.prover.mle import hypercube_point, log2_exact, next_pow2
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, WITNESS_PCS, PcsParams
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.prover import CommitmentData, commit


@dataclass(frozen=True)
class StackLayout:
    """Where each named column sits (stack, offset), its variables, and each stack's."""

    places: dict[str, tuple[int, int]]
    sizes: dict[str, int]
    stack_vars: list[int]

    @staticmethod
    def of(column_vars: Mapping[str, int], max_vars: int) -> StackLayout:
        """First-fit decreasing (ties by name). Offsets stay multiples of their column's size
        because the sizes placed into a stack only decrease and are all powers of two."""
        order = sorted(column_vars, key=lambda name: (-column_vars[name], name))
        places: dict[str, tuple[int, int]] = {}
        fill: list[int] = []
        for name in order:
            size = 1 << column_vars[name]
            if column_vars[name] > max_vars:
                raise ValueError(f"column {name!r} of 2^{column_vars[name]} exceeds 2^{max_vars}")
            stack = next((i for i, f in enumerate(fill) if f + size <= 1 << max_vars), len(fill))
            if stack == len(fill):
                fill.append(0)
            places[name] = (stack, fill[stack])
            fill[stack] += size
        return StackLayout(places, dict(column_vars), [log2_exact(next_pow2(f)) for f in fill])

    def point(self, name: str, point: Sequence[QM31]) -> tuple[QM31, ...]:
        """The point of column `name`'s stack at which it equals the column's MLE at `point`."""
        n = self.sizes[name]
        if len(point) != n:
            raise ValueError(f"column {name!r} has {n} variables, not {len(point)}")
        stack, offset = self.places[name]
        return (*hypercube_point(offset >> n, self.stack_vars[stack] - n), *point)

    def claims(self, claims: Mapping[str, Sequence[Claim]]) -> list[list[Claim]]:
        """Claims on columns as claims on each stack (columns in name order)."""
        out: list[list[Claim]] = [[] for _ in self.stack_vars]
        for name in sorted(claims):
            for c in claims[name]:
                out[self.places[name][0]].append(Claim(self.point(name, c.point), c.value))
        return out

    def pack(self, columns: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """Each stack's canonical M31 values from signed-integer columns of the layout's sizes."""
        if set(columns) != set(self.sizes):
            raise ValueError(f"columns {sorted(columns)} do not match {sorted(self.sizes)}")
        out = [np.zeros(1 << n, dtype=np.int64) for n in self.stack_vars]
        for name, values in columns.items():
            flat = np.asarray(values).ravel()
            if len(flat) != 1 << self.sizes[name]:
                raise ValueError(f"column {name!r} must hold 2^{self.sizes[name]} values")
            stack, offset = self.places[name]
            out[stack][offset : offset + len(flat)] = embed(flat)
        return out


def stack_names(prefix: str, layout: StackLayout) -> list[str]:
    """The statement's names of a layout's stack commitments: `prefix.0`, `prefix.1`, …"""
    return [f"{prefix}.{i}" for i in range(len(layout.stack_vars))]


def commit_stacks(
    prefix: str, layout: StackLayout, columns: Mapping[str, np.ndarray], params: PcsParams
) -> dict[str, CommitmentData]:
    """Signed-integer columns committed as the layout's stacks, by the statement's names."""
    made = [commit(values, params)[1] for values in layout.pack(columns)]
    return dict(zip(stack_names(prefix, layout), made, strict=True))


def stack_claims(
    prefix: str, layout: StackLayout, claims: Mapping[str, Sequence[Claim]]
) -> dict[str, list[Claim]]:
    """Claims on columns as claims on the stacks, by the statement's names of the stacks."""
    return dict(zip(stack_names(prefix, layout), layout.claims(claims), strict=True))


def check_stacks(
    prefix: str, layout: StackLayout, witness: Mapping[str, Commitment]
) -> list[Commitment]:
    """`prefix.commitment` unless the witness is exactly the layout's stacks, commitments of
    their sizes with one hash of `WITNESS_PCS` (the first stack's); returns them in stack
    order."""
    names = stack_names(prefix, layout)
    if set(witness) != set(names):
        raise VerificationError(f"{prefix}.commitment", f"expected witness {names}")
    hash_ = witness[names[0]].hash if names else ""
    for name, n_vars in zip(names, layout.stack_vars, strict=True):
        c = witness[name]
        # A root beyond its hash's digests (a Poseidon one ≥ p_stark) no calldata can carry.
        fits = hash_ in WITNESS_PCS and get_hash(hash_).is_digest(c.root)
        if c.hash != hash_ or not fits or c.n_vars != n_vars:
            raise VerificationError(
                f"{prefix}.commitment", f"{name}: not a witness commitment of 2^{n_vars}"
            )
    return [witness[name] for name in names]


def witness_hash(witness: Mapping[str, Commitment]) -> str:
    """The hash a layer's witness is committed with (one, `check_stacks`), which its fixed
    tables' pinned commitments use too; the default while nothing is committed."""
    return next(iter(witness.values())).hash if witness else DEFAULT_WITNESS_HASH
