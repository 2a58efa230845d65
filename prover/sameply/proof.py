"""The accumulation proof: a degree-2 sum-check and the MLE's value at its final point.

Claims (r_i, y_i), i < k, on one MLE f. After the values are absorbed the verifier draws
a_0..a_{k-1}; the sum-check proves sum_x g(x) f(x) = sum_i a_i y_i with
g(x) = sum_i a_i eq(r_i, x), ending at r'. The prover sends f(r'); the verifier rebuilds
g(r') = sum_i a_i eq(r_i, r') in O(k n), and the new claim is (r', f(r')).
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof

DEGREE = 2


@dataclass(frozen=True)
class SamePolyProof:
    sumcheck: SumcheckProof
    value: QM31
