"""The proof: the λ-batched projection sum-check (docs/layers/qkv.md).

For j = q, k, v a claim O_j(a_j, c_j) = y_j on O_j = X·W_j + 1·B_jᵀ. The prover sends the
bias claims B_j(c_j); λ1, λ2 are drawn; one degree-2 sum-check over log ê variables proves
Σ_j λ_j (y_j − m_j·B_j(c_j)) = Σ_z Σ_j λ_j X(a_j, z)·W_j(z, c_j) (λ_0 = 1, m_j the row mask
at a_j); it ends at r with the prover's values X(a, r) per distinct row point a and W_j(r, c_j).
The decode step (docs/layers/kvcache.md) is the same proof on one row of X.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof

DEGREE = 2


@dataclass(frozen=True)
class QkvProof:
    """bias: B_j(c_j) and w: W_j(r, c_j) for j = q, k, v; x: X(a, r) per distinct row point."""

    bias: list[QM31]
    sumcheck: SumcheckProof
    x: list[QM31]
    w: list[QM31]
