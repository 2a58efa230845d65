"""attn verifier: the mirror of prove_attn."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.attn.model import params_of
from cairn.prover.layers.attn.proof import AttnProof
from cairn.prover.layers.mha.model import Dims
from cairn.prover.layers.mha.prover import input_claims
from cairn.prover.layers.mha.verifier import verify_attend, verify_scores
from cairn.prover.softmax.verifier import verify_softmax
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_attn(
    st: Statement, proof: AttnProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    dims, params = Dims.of(st), params_of(st)
    at = verify_attend(dims, proof.unpad, proof.attend, outputs["o"], channel)
    a_claim = Claim(at.a, proof.attend.left)
    scores, witness = verify_softmax(dims, params, proof.softmax, a_claim, channel)
    sp = verify_scores(dims, proof.heads, proof.pad, scores, proof.attend, at, channel)
    return LayerClaims(input_claims(proof.attend, proof.pad, at, sp), {}, witness)
