"""Embed verifier: the mirror of prove_embed; O(s·log V + n) field work after the
sum-check, from the public ids (never from y)."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.layers.embed.gather import DEGREE, Gather
from cairn.prover.layers.embed.proof import EmbedProof
from cairn.prover.layers.embed.prover import split_point
from cairn.prover.mle import eq_table
from cairn.prover.sumcheck.verifier import verify_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_embed(
    st: Statement, proof: EmbedProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    gather = Gather.of(st.dims)
    blocks = len(gather.tables) - 1
    if len(proof.word) != blocks:
        raise VerificationError("embed.value_count", f"{len(proof.word)} != {blocks} word blocks")
    out = outputs["y"]
    r_i, r_c = split_point(gather, out)
    point, final = verify_sumcheck(out.value, proof.sumcheck, gather.n_vars, DEGREE, channel)
    values = [*proof.word, proof.position]
    channel.mix_felts(values)
    token_eq = eq_table(r_i).to_list()
    if final != gather.final_value(point, token_eq, values):
        raise VerificationError("embed.final_evaluation", "Σ_t sel_t·T_t at the end point differs")
    return LayerClaims({}, gather.claims(point, r_c, values))
