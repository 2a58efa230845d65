"""Linear verifier: the mirror of prove_linear; O(log s + log e + log h) field work."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.linear.model import LINEAR
from cairn.prover.layers.linear.projection import verify_layer
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_linear(
    st: Statement, proof: ProjectionProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    return verify_layer(LINEAR, st, proof, outputs, channel)
