"""The softmax proof (docs/layers/attn.md, "Softmax"): everything it sends on the Blake2s
sub-transcript, in transcript order."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.lookups.proof import LogUpProof
from cairn.prover.sumcheck.proof import SumcheckProof


@dataclass(frozen=True)
class ColumnValues:
    """The witness and table columns where the LogUp-GKR leaves them: limbs, flag and Y at the
    witness point ρ; the row sums' mean Ỹ(ρ', ½,…,½) at the NORM point; each multiplicity at
    its table's point; the exp table T̃ at its index coordinates."""

    lo: QM31
    e: QM31
    hi: QM31
    live: QM31
    y: QM31
    row_mean: QM31
    m_exp: QM31
    m_limb: QM31
    m_norm: QM31
    table: QM31

    def values(self) -> list[QM31]:
        return [
            self.lo,
            self.e,
            self.hi,
            self.live,
            self.y,
            self.row_mean,
            self.m_exp,
            self.m_limb,
            self.m_norm,
            self.table,
        ]


@dataclass(frozen=True)
class SoftmaxProof:
    """LogUp-GKR over EXP, LIMB, NORM; the column values; the recomposition sum-check and the
    shift ζ = Z̃(r*_row) and score σ = QK̂(r*) at its end. The witness stacks and the fixed
    exp table are opened by the walk (docs/claim-walk.md, step 10)."""

    logup: LogUpProof
    columns: ColumnValues
    recompose: SumcheckProof
    shift: QM31
    score: QM31
