"""Add verifier: the mirror of prove_add; no check of its own, the walk settles both claims."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.add.proof import AddProof
from cairn.prover.layers.add.prover import split_claim
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_add(
    st: Statement, proof: AddProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    return split_claim(outputs["y"], proof.a_value, channel)
