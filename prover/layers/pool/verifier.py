"""Pool verifier: the mirror of prove_pool; reads only dims (never x or y)."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.pool.proof import PoolProof
from cairn.prover.layers.pool.prover import row_sum_claims
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_pool(
    st: Statement, proof: PoolProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    return row_sum_claims(st, outputs["y"])
