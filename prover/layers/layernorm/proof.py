"""The layernorm proof (docs/layers/layernorm.md): everything it sends on its Blake2s
sub-transcript, in transcript order."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.mha.proof import HeadProductStep
from cairn.prover.layers.requant.proof import RequantColumns
from cairn.prover.lookups.proof import LogUpProof
from cairn.prover.sumcheck.proof import SumcheckProof


@dataclass(frozen=True)
class LimbColumns:
    """h's limbs lo, hi at the LogUp witness point ρ; the LIMB multiplicity at its table's."""

    lo: QM31
    hi: QM31
    m: QM31

    def values(self) -> list[QM31]:
        return [self.lo, self.hi, self.m]


@dataclass(frozen=True)
class StatisticsStep:
    """The sum-check binding the public statistics to the limbs, and lo, hi at its end."""

    sumcheck: SumcheckProof
    lo: QM31
    hi: QM31


@dataclass(frozen=True)
class LayerNormProof:
    """β̃ at the output's column point; one LogUp-GKR over both requantizations and the limbs;
    the columns at its points; the scale (over columns) and normalise (over rows) products;
    the statistics. The walk opens the witness stacks."""

    beta: QM31
    logup: LogUpProof
    norm: RequantColumns
    scale: RequantColumns
    limbs: LimbColumns
    scale_step: HeadProductStep
    norm_step: HeadProductStep
    statistics: StatisticsStep
