"""The proof of a batch of projections X·W_j + 1·B_jᵀ of one input (docs/layers/linear.md).

For each projection j a claim O_j(a_j, c_j) = y_j. The prover sends the bias claims B_j(c_j);
λ_1, … are drawn (none for one projection); one degree-3 sum-check over log ê variables proves
Σ_j λ_j (y_j − m_j·B_j(c_j)) = Σ_z M(z)·Σ_j λ_j X(a_j, z)·W_j(z, c_j) (λ_0 = 1, m_j the row
mask at a_j, M the mask of the e true inner indices: a committed X and W may hold anything in
their padding, which M keeps out of the sum); it ends at r with the prover's values X(a, r) per
distinct row point a and W_j(r, c_j); the verifier computes M(r) itself.
linear is one projection, qkv three (docs/layers/qkv.md), a decode step three on one row of X
(docs/layers/kvcache.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof

DEGREE = 3


@dataclass(frozen=True)
class ProjectionProof:
    """bias: B_j(c_j) and w: W_j(r, c_j) per projection; x: X(a, r) per distinct row point."""

    bias: list[QM31]
    sumcheck: SumcheckProof
    x: list[QM31]
    w: list[QM31]
