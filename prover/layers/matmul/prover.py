"""Matmul prover: the projection sum-check of `projection.py` on one weight, no bias."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.linear.projection import prove_layer
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.matmul.model import MATMUL
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def prove_matmul(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[ProjectionProof, LayerClaims]:
    return prove_layer(MATMUL, st, outputs, channel)
