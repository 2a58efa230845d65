"""Pool verifier: the mirror of prove_pool; reads only dims (never x or y)."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.pool.proof import PoolProof
from cairn.prover.layers.pool.prover import row_sum_claim
from cairn.prover.mle import log2_exact, next_pow2, tensor_vars
from cairn.prover.padding import expect_empty_rows, verify_empty_rows
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_pool(
    st: Statement, proof: PoolProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    claims = [row_sum_claim(st, outputs["y"])]
    expect_empty_rows(proof.empty_rows, "x" in st.committed)
    if proof.empty_rows is not None:
        s, d = st.dims
        row_vars, col_vars = log2_exact(next_pow2(s)), tensor_vars((d,))
        point = verify_empty_rows(proof.empty_rows, 1, s, row_vars, col_vars, channel)
        claims.append(Claim(tuple(point), proof.empty_rows.values[0]))
    return LayerClaims({"x": claims}, {})
