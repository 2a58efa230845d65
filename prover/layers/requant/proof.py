"""The requant proof (docs/layers/requant.md): everything it sends on its Blake2s
sub-transcript, in transcript order."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.lookups.proof import LogUpProof


@dataclass(frozen=True)
class RequantColumns:
    """The witness columns at the CLAMP witness point ρ, each multiplicity at its table's."""

    r0: QM31
    r1: QM31
    yq: QM31
    y: QM31
    m_range: QM31
    m_clamp: QM31

    def values(self) -> list[QM31]:
        return [self.r0, self.r1, self.yq, self.y, self.m_range, self.m_clamp]


@dataclass(frozen=True)
class RequantProof:
    """LogUp-GKR over RANGE and CLAMP and the column values; the walk opens the stack."""

    logup: LogUpProof
    columns: RequantColumns
