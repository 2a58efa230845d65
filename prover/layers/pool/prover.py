"""Pool prover: the output claim ỹ(r_c) becomes X̃(½, …, ½, r_c) = ỹ(r_c)/ŝ, no message.

For multilinear f on k variables, f(½, …, ½) = 2^−k·Σ_{b ∈ {0,1}^k} f(b): each variable's
factor (1 − ½)·f(0, ·) + ½·f(1, ·) is the mean of its two halves. X̂'s padded rows are zero,
so Σ_{i<ŝ} X̃(i, r_c) = ỹ(r_c).
"""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.layers.pool.proof import PoolProof
from cairn.prover.mle import inverse_pow2, log2_exact, next_pow2, pad_tensor
from cairn.prover.padding import prove_empty_rows
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement

HALF_POINT = inverse_pow2(1)
"""½ in M31."""


def row_sum_claim(st: Statement, out: Claim) -> Claim:
    """The claim on x the output claim is equal to (both sides; nothing is absorbed)."""
    k = log2_exact(next_pow2(st.dims[0]))
    return Claim((HALF_POINT,) * k + out.point, out.value * inverse_pow2(k))


def prove_pool(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[PoolProof, LayerClaims]:
    claims = [row_sum_claim(st, outputs["y"])]
    empty_rows = None
    if "x" in st.committed:  # the sum runs over x's padding rows: show they are zero
        x = embed(pad_tensor(st.inputs["x"]))
        empty_rows, point = prove_empty_rows([x], st.dims[0], channel)
        claims.append(Claim(tuple(point), empty_rows.values[0]))
    return PoolProof(empty_rows), LayerClaims({"x": claims}, {})
