"""The proof: one sum-check over the tables' rows and the tables' values at its end point
(docs/layers/embed.md)."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof


@dataclass(frozen=True)
class EmbedProof:
    """word: W̃_j(z_j, r_c) per word block j; position: P̃(z_P, r_c)."""

    sumcheck: SumcheckProof
    word: list[QM31]
    position: QM31
