"""A matmul proof: the public instance and the sum-check over the inner dimension."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.matmul.instance import MatmulInstance
from cairn.prover.sumcheck.proof import SumcheckProof

DEGREE = 2  # the summand A~(r_row, x) * B~(x, r_col) is a product of two MLEs


@dataclass(frozen=True)
class MatmulProof:
    instance: MatmulInstance
    sumcheck: SumcheckProof
