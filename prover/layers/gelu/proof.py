"""The gelu proof (docs/layers/gelu.md): everything it sends on its Blake2s sub-transcript, in
transcript order."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.lookups.proof import LogUpProof


@dataclass(frozen=True)
class GeluColumns:
    """x̃ and ỹ at the witness point ρ; the multiplicities and the table's outputs T̃ at the
    table's point (T̃ is opened against the pinned table, docs/layers/gelu.md)."""

    x: QM31
    y: QM31
    m: QM31
    t: QM31

    def values(self) -> list[QM31]:
        return [self.x, self.y, self.m, self.t]


@dataclass(frozen=True)
class GeluProof:
    """LogUp-GKR of (x, y) into the table and the column values; the walk opens the stack
    and the table."""

    logup: LogUpProof
    columns: GeluColumns
