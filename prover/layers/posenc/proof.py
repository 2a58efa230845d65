"""The proof: X̂(r) and one sibling claim per halving step (docs/layers/posenc.md)."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.padding import EmptyRowsProof


@dataclass(frozen=True)
class PosencProof:
    """empty_rows: present exactly when x is committed (its padding rows s … ŝ − 1 are zero,
    which the check cannot read)."""

    x_value: QM31
    siblings: list[QM31]
    empty_rows: EmptyRowsProof | None
