"""The batched LogUp-GKR proof (docs/lookups.md): the roots, then one layer per variable."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof


@dataclass(frozen=True)
class GkrLayer:
    """One layer: the batched sum-check and, per instance active at this layer (in instance
    order), its children at the sum-check's point: [p(s,0), p(s,1), q(s,0), q(s,1)]."""

    sumcheck: SumcheckProof
    masks: list[list[QM31]]


@dataclass(frozen=True)
class LogUpProof:
    """Per instance its root fraction [P, Q]; then the layers from the root to the leaves."""

    roots: list[list[QM31]]
    layers: list[GkrLayer]
