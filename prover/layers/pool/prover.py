"""Pool prover: the output claim ỹ(r_c) becomes X̃(½, …, ½, r_c) = ỹ(r_c)/ŝ, no message.

For multilinear f on k variables, f(½, …, ½) = 2^−k·Σ_{b ∈ {0,1}^k} f(b): each variable's
factor (1 − ½)·f(0, ·) + ½·f(1, ·) is the mean of its two halves. X̂'s padded rows are zero,
so Σ_{i<ŝ} X̃(i, r_c) = ỹ(r_c).
"""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.pool.proof import PoolProof
from cairn.prover.mle import inverse_pow2, log2_exact, next_pow2
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement

HALF_POINT = inverse_pow2(1)
"""½ in M31."""


def row_sum_claims(st: Statement, out: Claim) -> LayerClaims:
    """The claim on x the output claim is equal to (both sides; nothing is absorbed)."""
    k = log2_exact(next_pow2(st.dims[0]))
    value = out.value * inverse_pow2(k)
    return LayerClaims({"x": [Claim((HALF_POINT,) * k + out.point, value)]}, {})


def prove_pool(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[PoolProof, LayerClaims]:
    return PoolProof(), row_sum_claims(st, outputs["y"])
