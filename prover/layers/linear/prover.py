"""Linear prover: the projection sum-check of `projection.py` on one (W, B)."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.linear.model import LINEAR
from cairn.prover.layers.linear.projection import prove_layer
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def prove_linear(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[ProjectionProof, LayerClaims]:
    return prove_layer(LINEAR, st, outputs, channel)
