"""The proof (docs/layers/pool.md). The row sum of a multilinear X̃ is 2^k·X̃(½, …, ½, ·), so
the output claim turns into the input claim exactly; a committed x also shows its padding rows
are zero (the sum runs over them)."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.padding import EmptyRowsProof


@dataclass(frozen=True)
class PoolProof:
    """empty_rows: present exactly when x is committed (its rows s … ŝ − 1 are zero)."""

    empty_rows: EmptyRowsProof | None = None
