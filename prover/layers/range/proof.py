"""The range proof (docs/layers/range.md): one LogUp-GKR on its Blake2s sub-transcript and, per
summed weight, |w|'s MLE at the leaves' point (its key is paired with |w|); the leaves' values are
the other claims."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.lookups.proof import LogUpProof


@dataclass(frozen=True)
class RangeProof:
    logup: LogUpProof
    magnitudes: list[QM31]
