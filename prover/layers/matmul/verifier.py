"""Matmul verifier: the mirror of prove_matmul; O(log m + log k + log n) field work."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.linear.projection import verify_layer
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.matmul.model import MATMUL
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_matmul(
    st: Statement, proof: ProjectionProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    return verify_layer(MATMUL, st, proof, outputs, channel)
