"""Add prover: Ŷ = Â + B̂ as MLEs, so one value splits the output claim in two."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.add.proof import AddProof
from cairn.prover.mle import evaluate_tensor
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def split_claim(out: Claim, a_value: QM31, channel: Channel) -> LayerClaims:
    """(r, y) on Y becomes (r, v_a) on A and (r, y − v_a) on B, after v_a is absorbed; shared
    by prover and verifier."""
    channel.mix_felts([a_value])
    return LayerClaims(
        {"a": [Claim(out.point, a_value)], "b": [Claim(out.point, out.value - a_value)]}, {}
    )


def prove_add(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[AddProof, LayerClaims]:
    out = outputs["y"]
    proof = AddProof(evaluate_tensor(st.inputs["a"], out.point))
    return proof, split_claim(out, proof.a_value, channel)
