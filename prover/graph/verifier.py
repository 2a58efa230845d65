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
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.walk.statement import draw_output_claims
from cairn.prover.walk.verifier import open_committed, settle_claims
from cairn.prover.walk.witness import layer_tables, verify_witness


def verify_graph(proof: GraphProof) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check."""
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
    open_committed(g.committed, weight_claims, proof.opening, channel)
    witness = {(i, n): c for i, node in enumerate(g.nodes) for n, c in node.witness.items()}
    pinned = {n: t.pinned for n, t in witness_claims.tables.items()}
    verify_witness(witness_claims.batch(witness, pinned), proof.witness_opening, channel)
