"""attn prover: MHA's unpadding and A·Ṽ, softmax from the claim on A, then QKᵀ and padding
from the claim on QK̂ that softmax leaves (docs/layers/attn.md)."""

from __future__ import annotations

from typing import Any

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.layers.attn.model import params_of
from cairn.prover.layers.attn.proof import AttnProof
from cairn.prover.layers.mha.model import Dims, head_scores
from cairn.prover.layers.mha.prover import input_claims, prove_attend, prove_scores
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.softmax.prover import SoftmaxAdvice, commit_softmax, prove_softmax
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def advise_attn(st: Statement, pcs: PcsParams) -> tuple[dict[str, CommitmentData], Any]:
    """Commit to softmax's witness before the walk draws anything."""
    dims = Dims.of(st)
    scores = head_scores(st.inputs["q"], st.inputs["k"], dims)
    return commit_softmax(dims, params_of(st), scores, pcs)


def prove_attn(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: SoftmaxAdvice
) -> tuple[AttnProof, LayerClaims]:
    dims, params = Dims.of(st), params_of(st)
    q, k, v = (st.inputs[name] for name in ("q", "k", "v"))
    a = advice.trace.y[: dims.h, : dims.s, : dims.s]
    unpad, attend, at = prove_attend(dims, a, v, outputs["o"], channel)
    softmax, scores, witness = prove_softmax(
        dims, params, advice, Claim(at.a, attend.left), channel
    )
    heads, pad, sp = prove_scores(dims, (q, k, v), scores.point, at, channel)
    proof = AttnProof(unpad, attend, softmax, heads, pad)
    return proof, LayerClaims(input_claims(attend, pad, at, sp), {}, witness)
