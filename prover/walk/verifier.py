"""Walk verifier: the mirror of prove_walk; merged claims are checked against the tensors."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.mle import evaluate_tensor, tensor_vars
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import Tensors, absorb_statement, draw_output_claims


def _settle_all(
    group: str,
    tensors: Tensors,
    claims: dict[str, list[Claim]],
    proofs: dict[str, SamePolyProof | None],
    channel: Channel,
) -> None:
    if set(claims) != set(tensors) or set(proofs) != set(tensors):
        raise VerificationError(f"walk.{group}_claims", f"claims must cover {sorted(tensors)}")
    for name in sorted(tensors):
        t = tensors[name]
        merged = verify_sameply(proofs[name], claims[name], tensor_vars(t.shape), channel)
        if evaluate_tensor(t, merged.point) != merged.value:
            raise VerificationError(f"walk.{group}_claim", f"{group} {name!r} does not match")


def verify_walk(spec: LayerSpec, proof: WalkProof) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check."""
    st = proof.statement
    if st.kind != spec.kind:
        raise VerificationError("statement.kind", f"{st.kind!r} is not {spec.kind!r}")
    spec.check(st)
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    outputs = draw_output_claims(channel, st.outputs)
    claims = spec.verify(st, proof.layer, outputs, channel)
    _settle_all("input", st.inputs, claims.inputs, proof.inputs, channel)
    _settle_all("weight", st.weights, claims.weights, proof.weights, channel)
