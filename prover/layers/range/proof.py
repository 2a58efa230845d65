"""The range proof (docs/layers/range.md): one LogUp-GKR on its Blake2s sub-transcript; the
leaves' values are the claims, so nothing else is sent."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.lookups.proof import LogUpProof


@dataclass(frozen=True)
class RangeProof:
    logup: LogUpProof
