"""Walk prover: statement -> output claims -> layer -> merged input and weight claims."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.mle import pad_tensor
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sameply.prover import prove_sameply
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import Statement, Tensors, absorb_statement, draw_output_claims


def _merge_all(
    tensors: Tensors, claims: dict[str, list[Claim]], channel: Channel
) -> dict[str, SamePolyProof | None]:
    proofs = {}
    for name in sorted(tensors):
        table = QM31Array.from_base(embed(pad_tensor(tensors[name])).ravel())
        proofs[name], _ = prove_sameply(table, claims[name], channel)
    return proofs


def prove_walk(spec: LayerSpec, st: Statement) -> WalkProof:
    spec.check(st)
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    outputs = draw_output_claims(channel, st.outputs)
    layer_proof, claims = spec.prove(st, outputs, channel)
    inputs = _merge_all(st.inputs, claims.inputs, channel)
    weights = _merge_all(st.weights, claims.weights, channel)
    return WalkProof(st, layer_proof, inputs, weights)
