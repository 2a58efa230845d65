"""QKV prover: the projection sum-check of prover/layers/linear/projection.py on three (W, B)."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.linear.projection import prove_layer
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.qkv.model import QKV
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def prove_qkv(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[ProjectionProof, LayerClaims]:
    return prove_layer(QKV, st, outputs, channel)
