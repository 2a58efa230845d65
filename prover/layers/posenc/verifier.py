"""Posenc verifier: the mirror of prove_posenc; siblings come from the proof."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.layers.posenc.proof import PosencProof
from cairn.prover.layers.posenc.prover import halve_up
from cairn.prover.mle import log2_exact, next_pow2, tensor_vars
from cairn.prover.padding import expect_empty_rows, verify_empty_rows
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_posenc(
    st: Statement, proof: PosencProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    s, c, _ = st.dims
    steps = log2_exact(next_pow2(c)) - log2_exact(next_pow2(s))
    if len(proof.siblings) != steps:
        raise VerificationError("posenc.sibling_count", f"{len(proof.siblings)} != {steps}")
    out = outputs["o"]
    channel.mix_felts([proof.x_value])
    claim = Claim(out.point, out.value - proof.x_value)
    for sibling in proof.siblings:
        claim = halve_up(claim, sibling, channel)
    x_claims = [Claim(out.point, proof.x_value)]
    expect_empty_rows(proof.empty_rows, "x" in st.committed)
    if proof.empty_rows is not None:
        row_vars, col_vars = log2_exact(next_pow2(s)), tensor_vars((st.dims[2],))
        point = verify_empty_rows(proof.empty_rows, 1, s, row_vars, col_vars, channel)
        x_claims.append(Claim(tuple(point), proof.empty_rows.values[0]))
    return LayerClaims({"x": x_claims}, {"p": [claim]})
