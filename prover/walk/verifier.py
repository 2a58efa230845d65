"""Walk verifier: the mirror of prove_walk; merged claims are checked against the tensors."""

from __future__ import annotations

from collections.abc import Mapping

from cairn.prover.channels.base import Channel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.mle import evaluate_tensor, tensor_vars
from cairn.prover.pcs.params import PARAMS, PcsParams
from cairn.prover.pcs.proof import Commitment, CommittedTensor, OpeningProof
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.walk.claims import OpeningClaims, opening_claims, public_claims
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import (
    Statement,
    Tensors,
    absorb_statement,
    expect_binding,
    expect_public_reads,
    walk_output_claims,
)
from cairn.prover.walk.witness import (
    batch,
    check_soundness,
    expect_claims,
    expect_witness_opening,
    layer_tables,
    verify_witness,
)


def settle_claims(
    group: str,
    tensors: Tensors,
    claims: Mapping[str, list[Claim]],
    proofs: Mapping[str, SamePolyProof | None],
    channel: Channel,
) -> None:
    """Merge each public tensor's claims and evaluate the tensor at the merged point."""
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
    channel, claims = replay_layer(spec, proof)
    open_committed(st.committed, claims.committed, proof.opening, channel)
    verify_witness(witness_batch(spec, st, claims.witness), proof.witness_opening, channel)


def witness_batch(
    spec: LayerSpec, st: Statement, claims: Mapping[str, list[Claim]]
) -> list[tuple[Commitment, list[Claim]]]:
    """The witness opening's statement: the witness stacks, then the kind's fixed tables,
    each by name with the layer's claims (`walk.witness_claims` unless they fall on exactly
    those)."""
    pinned = {n: t.pinned for n, t in layer_tables(spec, st).items()}
    expect_claims("walk.witness_claims", st.kind, st.witness.keys() | pinned.keys(), claims)
    return batch(st.witness, claims) + batch(pinned, claims)


def replay_layer(spec: LayerSpec, proof: WalkProof) -> tuple[Poseidon252Channel, OpeningClaims]:
    """The walk up to its openings: the statement's checks and transcript, the layer, the
    public tensors' settlements; the channel and the claims left on the committed tensors and
    the witness (an on-chain session starts the committed tensors' opening from here,
    deploy/sessions.py)."""
    st = proof.statement
    if st.kind != spec.kind:
        raise VerificationError("statement.kind", f"{st.kind!r} is not {spec.kind!r}")
    if st.ranged:  # derived in a model walk from its declared weights, never read from a proof
        raise VerificationError("statement.shape", "a layer walk declares no ranges")
    expect_public_reads(st, spec.reads)
    spec.check(st)
    check_soundness(spec, st)
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    outputs = walk_output_claims(channel, st, proof.outputs, spec.outputs)
    claims = spec.verify(st, proof.layer, outputs, channel)
    inputs, weights = public_claims(st, claims.inputs), public_claims(st, claims.weights)
    settle_claims("input", st.public("inputs"), inputs, proof.inputs, channel)
    settle_claims("weight", st.public("weights"), weights, proof.weights, channel)
    opening = opening_claims(st, claims, outputs)
    expect_binding(st, claims.weights)
    # Checked here, before either opening, as the walk class checks them.
    expect_witness_opening(witness_batch(spec, st, opening.witness), proof.witness_opening)
    return channel, opening


def open_committed(
    committed: Mapping[str, CommittedTensor],
    claims: Mapping[str, list[Claim]],
    opening: OpeningProof | None,
    channel: Channel,
) -> None:
    """One batch opening settles every claim on the committed tensors (all of one hash)."""
    expect_opening(committed, opening)
    if opening is None:
        return
    params = committed_params(committed)
    verify_batch(committed_batch(committed, claims), opening, params, channel)


def committed_params(committed: Mapping[str, CommittedTensor]) -> PcsParams:
    """The parameters of the committed tensors' one hash (`statement.shape` unless they are
    all of one known hash)."""
    hashes = {ct.commitment.hash for ct in committed.values()}
    if len(hashes) != 1 or (hash_ := hashes.pop()) not in PARAMS:
        raise VerificationError("statement.shape", "committed tensors need one known hash")
    return PARAMS[hash_]


def expect_opening(committed: Mapping[str, CommittedTensor], opening: OpeningProof | None) -> None:
    """`walk.opening` unless an opening is present exactly when tensors are committed."""
    if (opening is None) != (not committed):
        raise VerificationError("walk.opening", "an opening is due exactly for committed tensors")


def committed_batch(
    committed: Mapping[str, CommittedTensor], claims: Mapping[str, list[Claim]]
) -> list[tuple[Commitment, list[Claim]]]:
    """The committed tensors' opening statement: each commitment with its claims, by name."""
    return [(committed[n].commitment, claims[n]) for n in sorted(committed)]
