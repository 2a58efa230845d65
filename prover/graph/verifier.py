"""Model-walk verifier: the mirror of prove_graph."""

from __future__ import annotations

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.statement import WitnessClaims, absorb_graph, route_claims
from cairn.prover.graph.views import layer_statements
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import tensor_vars
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.walk.statement import draw_output_claims
from cairn.prover.walk.verifier import (
    committed_batch,
    committed_params,
    expect_opening,
    settle_claims,
)
from cairn.prover.walk.witness import expect_witness_opening, layer_tables, verify_witness

Batch = list[tuple[Commitment, list[Claim]]]


def verify_graph(proof: GraphProof) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check."""
    channel, committed, witness = replay_graph(proof)
    verify_openings(proof, channel, committed, witness)


def replay_graph(proof: GraphProof) -> tuple[Poseidon252Channel, Batch, Batch]:
    """The walk up to its openings: the statement's checks and transcript, every node, the
    public tensors' settlements, and whether each opening is present; the channel and the
    openings' statements, the committed weights' and the witness's (an on-chain session
    starts the openings from here, deploy/sessions.py)."""
    g = proof.statement
    statements = layer_statements(g)
    if len(proof.nodes) != len(g.nodes):
        raise VerificationError("graph.shape", f"{len(g.nodes)} nodes need as many node proofs")
    channel = Poseidon252Channel()
    absorb_graph(channel, g)
    claims: dict[str, list[Claim]] = {
        name: [c] for name, c in draw_output_claims(channel, g.outputs).items()
    }
    weight_claims: dict[str, list[Claim]] = {}
    witness_claims = WitnessClaims()
    shapes = {**g.hidden, **{name: t.shape for name, t in g.outputs.items()}}
    for i in reversed(range(len(g.nodes))):
        node, node_proof = g.nodes[i], proof.nodes[i]
        if set(node_proof.outputs) != set(node.outputs):
            raise VerificationError("graph.claims", f"node {i}: one merge per output")
        outputs = {}
        for local in sorted(node.outputs):
            name = node.outputs[local]
            outputs[local] = verify_sameply(
                node_proof.outputs[local], claims.pop(name, []), tensor_vars(shapes[name]), channel
            )
        left = LAYERS[node.kind].verify(statements[i], node_proof.layer, outputs, channel)
        route_claims(i, node, left.inputs, left.weights, claims, weight_claims)
        witness_claims.add(i, node, layer_tables(LAYERS[node.kind], statements[i]), left.witness)
    settle_claims("input", g.inputs, claims, proof.inputs, channel)
    public = {n: c for n, c in weight_claims.items() if n not in g.committed}
    settle_claims("weight", g.weights, public, proof.weights, channel)
    committed = committed_batch(g.committed, weight_claims)
    own = {(i, n): c for i, node in enumerate(g.nodes) for n, c in node.witness.items()}
    pinned = {n: t.pinned for n, t in witness_claims.tables.items()}
    witness = witness_claims.batch(own, pinned)
    # Checked here, before either opening, as the graph class checks them.
    expect_opening(g.committed, proof.opening)
    expect_witness_opening(witness, proof.witness_opening)
    return channel, committed, witness


def verify_openings(
    proof: GraphProof, channel: Poseidon252Channel, committed: Batch, witness: Batch
) -> None:
    """After `replay_graph`: the committed weights' opening on the walk's channel, then the
    witness opening on a Blake2s fork of it."""
    if proof.opening is not None:
        verify_batch(committed, proof.opening, committed_params(proof.statement.committed), channel)
    verify_witness(witness, proof.witness_opening, channel)
