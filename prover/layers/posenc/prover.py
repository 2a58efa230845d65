"""Posenc prover: split the output claim, then climb from P[:ŝ] to P by halving.

Step j (1..k, k = log ĉ - log ŝ): the claim c is on M = the first 2^(j-1)·ŝ rows of P̂ at
point q. The prover sends t = T(q), T the next 2^(j-1)·ŝ rows; after t is absorbed the
verifier draws ρ, and the claim becomes ((1-ρ)c + ρt) on the first 2^j·ŝ rows at (ρ, q).
"""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.posenc.proof import PosencProof
from cairn.prover.mle import evaluate, evaluate_tensor, pad_tensor
from cairn.prover.padding import prove_empty_rows
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def halve_up(claim: Claim, sibling: QM31, channel: Channel) -> Claim:
    """One halving step's transcript and arithmetic, shared by prover and verifier."""
    channel.mix_felts([sibling])
    rho = channel.draw_secure_felt()
    return Claim((rho, *claim.point), claim.value + (sibling - claim.value) * rho)


def prove_posenc(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[PosencProof, LayerClaims]:
    out = outputs["o"]
    x_value = evaluate_tensor(st.inputs["x"], out.point)
    channel.mix_felts([x_value])
    table = embed(pad_tensor(st.weights["p"]))
    rows = pad_tensor(st.inputs["x"]).shape[0]
    claim = Claim(out.point, out.value - x_value)
    siblings = []
    while rows < table.shape[0]:
        sibling = evaluate(table[rows : 2 * rows].ravel(), claim.point)
        claim = halve_up(claim, sibling, channel)
        siblings.append(sibling)
        rows *= 2
    x_claims = [Claim(out.point, x_value)]
    empty_rows = None
    if "x" in st.committed:
        x = embed(pad_tensor(st.inputs["x"]))
        empty_rows, point = prove_empty_rows([x], st.dims[0], channel)
        x_claims.append(Claim(tuple(point), empty_rows.values[0]))
    return PosencProof(x_value, siblings, empty_rows), LayerClaims({"x": x_claims}, {"p": [claim]})
