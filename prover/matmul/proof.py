"""A matmul proof: the public instance and the sum-check over the inner dimension."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.matmul.instance import MatmulInstance
from cairn.prover.pcs.proof import OpeningProof
from cairn.prover.sumcheck.proof import SumcheckProof

DEGREE = 2  # the summand A~(r_row, x) * B~(x, r_col) is a product of two MLEs


@dataclass(frozen=True)
class MatmulProof:
    """With a committed B, the prover also sends b_value = B~(r_inner, r_col) and opens it."""

    instance: MatmulInstance
    sumcheck: SumcheckProof
    b_value: QM31 | None = None
    opening: OpeningProof | None = None
