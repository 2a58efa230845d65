"""Model-walk verifier: the mirror of prove_graph."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.graph.declared import check_certified
from cairn.prover.graph.proof import GraphProof, NodeProof, Settlement
from cairn.prover.graph.statement import (
    GraphStatement,
    WitnessClaims,
    absorb_graph,
    route_claims,
)
from cairn.prover.graph.views import StatementChecks, check_structure
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import tensor_vars
from cairn.prover.padding import verify_outside_zero
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import draw_output_claims
from cairn.prover.walk.verifier import (
    committed_batch,
    committed_params,
    expect_opening,
    settle_claims,
)
from cairn.prover.walk.witness import layer_tables, verify_witness

Batch = list[tuple[Commitment, list[Claim]]]


def verify_graph(proof: GraphProof, certificates: Sequence[WalkProof] = ()) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check. A statement
    that declares weights' ranges needs `certificates` proving them (`graph.declared`)."""
    g = proof.statement
    if g.declared:
        check_certified(g.declared, g.committed, certificates)
    channel, committed, witness = replay_graph(proof)
    verify_openings(g, proof.opening, proof.witness_opening, channel, committed, witness)


def replay_graph(proof: GraphProof) -> tuple[Poseidon252Channel, Batch, Batch]:
    """The walk up to its openings: the statement's checks and transcript, every node, the
    public tensors' settlements, and whether each opening is present; the channel and the
    openings' statements, the committed weights' and the witness's (an on-chain session
    starts the openings from here, deploy/sessions.py)."""
    g = proof.statement
    walk = GraphWalk.start(g, proof.outputs)
    while not walk.checks.done:  # every node's statement checked first, as on chain
        walk.checks.check_next()
    if len(proof.nodes) != len(g.nodes):
        raise VerificationError("graph.shape", f"{len(g.nodes)} nodes need as many node proofs")
    while walk.left:
        walk.step(proof.nodes[walk.left - 1])
    return walk.settle(proof.settlement)


@dataclass
class GraphWalk:
    """A model walk's verification between two parts: what the verifier carries from one
    node to the next (docs/model-walk.md, "Transcript", step 7). An on-chain session cut
    between parts carries the nodes left, the channel and the pending claims in its state
    (deploy/sessions.py), and the rest in the contract's storage. `checks` holds the nodes'
    statements checked so far (all of them before any node is verified); `left` nodes are still to
    verify, the next one is node `left − 1`; `claims` pends on graph tensors; `weight_claims`
    on weights and, drawn at the start, on committed outputs (the opening proves those: a
    committed output's claim is both reduced by its producer and opened); `witness` on the
    nodes' witness and tables."""

    statement: GraphStatement
    checks: StatementChecks
    channel: Poseidon252Channel
    claims: dict[str, list[Claim]]
    weight_claims: dict[str, list[Claim]] = field(default_factory=dict)
    witness: WitnessClaims = field(default_factory=WitnessClaims)
    left: int = 0

    @classmethod
    def start(cls, g: GraphStatement, values: Mapping[str, QM31]) -> GraphWalk:
        """The statement's structure checks and transcript, and the claims drawn on the outputs;
        `values` the committed outputs' (`walk.output_values` unless exactly theirs). The
        nodes' statements are checked next (`checks.check_next`)."""
        check_structure(g)
        committed = g.committed_outputs()
        if values.keys() != committed.keys():
            raise VerificationError("walk.output_values", "a value for each committed output")
        channel = Poseidon252Channel()
        absorb_graph(channel, g)
        drawn = draw_output_claims(channel, g.outputs, committed, lambda n, _p: values[n])
        claims = {name: [c] for name, c in drawn.items()}
        opened = {name: [drawn[name]] for name in sorted(values)}
        return cls(g, StatementChecks(g), channel, claims, opened, left=len(g.nodes))

    def step(self, node_proof: NodeProof) -> None:
        """Node `left − 1` from its proof: its outputs' claims merged, its layer verified, its
        claims routed to its producers, the weights and the witness."""
        assert self.checks.done and self.left > 0, "every node checked, not every node verified"
        g, i = self.statement, self.left - 1
        node = g.nodes[i]
        if set(node_proof.outputs) != set(node.outputs):
            raise VerificationError("graph.claims", f"node {i}: one merge per output")
        shapes = {**g.unseen(), **{name: t.shape for name, t in g.outputs.items()}}
        outputs = {}
        for local in sorted(node.outputs):
            name = node.outputs[local]
            outputs[local] = verify_sameply(
                node_proof.outputs[local],
                self.claims.pop(name, []),
                tensor_vars(shapes[name]),
                self.channel,
            )
        spec, st = LAYERS[node.kind], self.checks.views[i]
        left = spec.verify(st, node_proof.layer, outputs, self.channel)
        route_claims(i, node, left.inputs, left.weights, self.claims, self.weight_claims)
        self.witness.add(i, node, layer_tables(spec, st), left.witness)
        self.left = i

    def settle(self, proof: Settlement) -> tuple[Poseidon252Channel, Batch, Batch]:
        """After the last node: the committed inputs' padding shown zero, the public inputs'
        settlements, the openings' statements (the claims left on committed inputs join the
        committed weights' and outputs') and whether the committed tensors' opening is present;
        the witness opening's presence is checked with it (`verify_witness`), as the graph
        class checks it with the part that carries it."""
        assert self.left == 0, f"{self.left} nodes are still to verify"
        g, channel = self.statement, self.channel
        padded = g.padded_inputs()
        if proof.padding.keys() != padded.keys():
            raise VerificationError("padding.empty_rows", "one proof per padded committed input")
        for name, ct in padded.items():
            dim_vars = [tensor_vars((d,)) for d in ct.shape]
            zero = proof.padding[name]
            point = verify_outside_zero(zero, 1, ct.shape, dim_vars, channel)
            self.claims.setdefault(name, []).append(Claim(tuple(point), zero.values[0]))
        for name in sorted(g.committed_inputs()):
            self.weight_claims[name] = self.claims.pop(name, [])
        settle_claims("input", g.inputs, self.claims, proof.inputs, channel)
        public = {n: c for n, c in self.weight_claims.items() if n not in g.committed}
        settle_claims("weight", g.weights, public, proof.weights, channel)
        committed = committed_batch(g.committed, self.weight_claims)
        own = {(i, n): c for i, node in enumerate(g.nodes) for n, c in node.witness.items()}
        pinned = {n: t.pinned for n, t in self.witness.tables.items()}
        witness = self.witness.batch(own, pinned)
        expect_opening(g.committed, proof.opening)
        return channel, committed, witness


def verify_openings(
    g: GraphStatement,
    opening: OpeningProof | None,
    witness_opening: OpeningProof | None,
    channel: Poseidon252Channel,
    committed: Batch,
    witness: Batch,
) -> None:
    """After `replay_graph`: the committed weights' opening on the walk's channel, then the
    witness opening on a Blake2s fork of it."""
    if opening is not None:
        verify_batch(committed, opening, committed_params(g.committed), channel)
    verify_witness(witness, witness_opening, channel)
