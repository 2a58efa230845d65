"""The proof: X̂(r) and one sibling claim per halving step (docs/layers/posenc.md)."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31


@dataclass(frozen=True)
class PosencProof:
    x_value: QM31
    siblings: list[QM31]
