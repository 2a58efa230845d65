"""A model-walk (graph) proof as calldata, kind 5 (docs/calldata.md, "Model walks"): the
header, the GraphStatement in Cairo's Serde order (`serde.py`) and the committed outputs'
values; then one check part per node in node order (its index: the verifier checks that
node's statement, as it carries no proof the part is one felt); then one part per node in
walk order, last node first (a `NodeProof`, its layer proof the variant of that node's kind);
then the settlement (`Settlement`: the public inputs' and weights' merges, the committed
tensors' opening's front), then the witness opening's front (an `Option<OpeningProof>`, a part
of its own: a session may verify the two fronts in two transactions), then if it is present
its step parts, one per witness polynomial absorbed, then one per polynomial reduced, each the
polynomial's index (a session verifies that front polynomial by polynomial: `pcs.front`);
then the Merkle openings of its committed weights' opening and of its witness opening, one
part per tree, as a layer proof's (`walk_calldata`). An on-chain session may cut between any
two parts after the statement."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.fields.qm31 import QM31
from cairn.prover.graph.proof import GraphProof, NodeProof, Settlement
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.graph.verifier import Batch, GraphWalk
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.witness import expect_one_hash, expect_witness_opening, layer_tables
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.header import KIND_GRAPH, VERSION
from cairn.serializer.serde import Decoder, Encoder, resolve
from cairn.serializer.walk_calldata import (
    ONCHAIN_KINDS,
    check_committed,
    open_decoder,
    opening_trees,
    read_openings,
    statement_felts,
)

GRAPH_KINDS = tuple(k for k in ONCHAIN_KINDS if k not in ("mha", "qkv-decode"))
"""The kinds a graph on chain may hold: mha's and qkv-decode's statement checks bound products
of their inputs, which the Cairo graph cannot do yet from a hidden tensor's bound."""


def offchain_reason(g: GraphStatement) -> str | None:
    """Why the contract cannot read this graph, if it cannot: a node of a kind it does not
    verify in a graph, or public weights (on chain a graph's weights are
    committed: public ones enter the transcript by a Blake2s digest of all their values, which
    the contract cannot recompute)."""
    for i, node in enumerate(g.nodes):
        if node.kind not in GRAPH_KINDS:
            kinds = ", ".join(GRAPH_KINDS)
            return f"node {i} ({node.kind!r}) is not verified on chain yet (in graphs: {kinds})"
    if g.weights:
        return "a graph's public weights are not verified on chain: prove it with --commit-weights"
    return None


def encode_graph_parts(proof: GraphProof) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """(the header and statement; the walk's parts: each node's check part, then each node's
    proof, last node first, then the settlement, the witness opening's front and its step
    parts; one part per tree: the committed weights' opening's, then the witness opening's).
    ValueError if the contract cannot read this graph (`offchain_reason`)."""
    g = proof.statement
    if reason := offchain_reason(g):
        raise ValueError(reason)
    if len(proof.nodes) != len(g.nodes):
        raise ValueError(f"{len(proof.nodes)} node proofs for {len(g.nodes)} nodes")
    front, walk = graph_parts(proof, [node.kind for node in g.nodes])
    witness = partial(witness_commitments, g)
    trees = opening_trees(g.committed, proof.opening, witness, proof.witness_opening)
    return front, walk, trees


def graph_parts(proof: GraphProof, kinds: Sequence[str]) -> tuple[list[int], list[list[int]]]:
    """The header, statement and committed outputs' values; then one check part per node, then
    one part per node proof, last first, the i-th's layer proof the variant of `kinds[i]`
    (several kinds share a proof type), then the settlement, then the witness opening's front
    and, if it is present, its step parts (`witness_steps`). Without the encoder's refusals:
    the reader's tests write what it refuses this way."""
    front = [VERSION, KIND_GRAPH]
    Encoder(lambda _: 0).encode(proof.statement, GraphStatement, front)
    Encoder(lambda _: 0).encode(proof.outputs, dict[str, QM31], front)
    walk = [[i] for i in range(len(proof.statement.nodes))]
    for node_proof, kind in reversed(list(zip(proof.nodes, kinds, strict=True))):
        part: list[int] = []
        Encoder(lambda _, kind=kind: ONCHAIN_KINDS.index(kind)).encode(node_proof, NodeProof, part)
        walk.append(part)
    settlement: list[int] = []
    Encoder(lambda _: 0).encode(proof.settlement, Settlement, settlement)
    witness: list[int] = []
    Encoder(lambda _: 0).encode(proof.witness_opening, OpeningProof | None, witness)
    steps = witness_steps(proof.statement) if proof.witness_opening is not None else []
    return front, [*walk, settlement, witness, *steps]


def witness_steps(g: GraphStatement) -> list[list[int]]:
    """The witness opening's step parts: each polynomial's index, absorbed, then reduced."""
    n = len(witness_commitments(g))
    return [[j] for _ in range(2) for j in range(n)]


def witness_step_polys(proof: GraphProof) -> int:
    """How many polynomials the witness opening's step parts go through (none without it)."""
    return 0 if proof.witness_opening is None else len(witness_commitments(proof.statement))


@dataclass(frozen=True)
class WitnessPolys:
    """The witness opening's polynomials in `WitnessClaims.batch` order — every node's witness
    commitments (nodes in order, names in order within a node), then the fixed tables by name
    (one polynomial per name, whichever nodes read it) from `tables_from` — and where the
    contract finds their claims (Cairo's `records::WitnessPolys`): per polynomial, per node
    record holding some, in the order they are joined, the node and the claims' slot in it (a
    node's own commitments in name order; its tables in its kind's order, a table's nodes
    last first)."""

    commitments: list[Commitment]
    sources: list[list[tuple[int, int]]]
    tables_from: int


def witness_polys(g: GraphStatement) -> WitnessPolys:
    own = [node.witness[n] for node in g.nodes for n in sorted(node.witness)]
    sources = [[(i, slot)] for i, node in enumerate(g.nodes) for slot in range(len(node.witness))]
    pinned: dict[str, Commitment] = {}
    readers: dict[str, list[tuple[int, int]]] = {}
    for i in reversed(range(len(g.nodes))):
        node = g.nodes[i]
        # A kind's tables depend on its dims alone: no view (nor structure check) is needed.
        st = Statement(node.kind, node.dims, {}, {}, {}, {}, node.witness)
        for slot, (name, table) in enumerate(layer_tables(LAYERS[node.kind], st).items()):
            pinned.setdefault(name, table.pinned)
            readers.setdefault(name, []).append((i, slot))
    names = sorted(pinned)
    return WitnessPolys(
        own + [pinned[n] for n in names], sources + [readers[n] for n in names], len(own)
    )


def witness_commitments(g: GraphStatement) -> list[Commitment]:
    """The witness opening's polynomials (`witness_polys`)."""
    return witness_polys(g).commitments


def encode_graph(proof: GraphProof) -> list[int]:
    front, walk, trees = encode_graph_parts(proof)
    return [*front, *(f for part in [*walk, *trees] for f in part)]


def is_graph(felts: list[int]) -> bool:
    """Calldata of kind 5 (what the contract dispatches on; the reader checks the version)."""
    return len(felts) >= 2 and felts[1] == KIND_GRAPH


def io_felts(felts: list[int]) -> list[int]:
    """The GraphStatement's felts in well-formed graph calldata: what the contract's `io_hash`
    hashes (docs/registry.md)."""
    return statement_felts(felts, KIND_GRAPH, GraphStatement)


@dataclass
class GraphReader:
    """Graph calldata read part by part as the graph class reads it: `at` is where the next
    part starts. Each read raises MalformedProofError naming the first failure, as the Cairo
    reader panics."""

    felts: list[int]
    statement: GraphStatement
    outputs: dict[str, QM31]
    at: int

    @classmethod
    def open(cls, felts: list[int]) -> GraphReader:
        """The header and the statement: its deserialization, its tensors' and names' checks;
        then per node in order a kind verified in graphs and no witness on a kind without
        advice (both `calldata.offchain`); no public weights (`calldata.offchain`); the
        committed tensors' hash, roots and sizes (`pcs.hash`, `merkle.digest`, `pcs.size`);
        then the committed outputs' values (their deserialization and names)."""
        dec = open_decoder(felts, KIND_GRAPH)
        g = dec.decode(GraphStatement, "statement")
        dec.finish()
        for i, node in enumerate(g.nodes):
            where = f"statement.nodes[{i}]"
            if node.kind not in GRAPH_KINDS:
                raise MalformedProofError(
                    where, f"{node.kind!r} nodes are not read on chain", "calldata.offchain"
                )
            if node.witness and LAYERS[node.kind].advise is None:
                raise MalformedProofError(
                    where, f"{node.kind} nodes carry no witness", "calldata.offchain"
                )
        if g.weights:
            raise MalformedProofError(
                "statement.weights", "public weights are not read on chain", "calldata.offchain"
            )
        check_committed(dec.rd, g.committed)
        values = _decoder_at(felts, dec.rd.pos)  # the statement's checks are done: not again
        outputs = values.decode(dict[str, QM31], "outputs")
        values.finish()
        return cls(felts, resolve(g), outputs, values.rd.pos)

    def check(self, index: int) -> None:
        """Check part `index`: the index of the node whose statement it checks, the next one
        (`calldata.check`)."""
        self._index(f"checks[{index}]", index, "calldata.check")

    def _index(self, what: str, index: int, check: str) -> None:
        """A one-felt part that must be `index` (`check` otherwise)."""
        dec = _decoder_at(self.felts, self.at)
        dec.rd.exact(what, index, check)
        self.at = dec.rd.pos

    def node(self, index: int) -> NodeProof:
        """Node `index`'s part: its deserialization and checks, then its layer proof's variant
        is the node's kind (`statement.kind`), then its nested parts."""
        kinds: list[str] = []
        dec = _decoder_at(self.felts, self.at, kinds)
        proof = dec.decode(NodeProof, f"nodes[{index}]")
        dec.finish()
        kind = self.statement.nodes[index].kind
        if kinds[0] != kind:
            raise MalformedProofError(
                f"nodes[{index}]", f"a {kinds[0]} proof for a {kind} node", "statement.kind"
            )
        dec.nested()
        self.at = dec.rd.pos
        return resolve(proof)

    def settlement(self) -> Settlement:
        """The settlement part: its deserialization and names."""
        dec = _decoder_at(self.felts, self.at)
        settlement = dec.decode(Settlement, "settlement")
        dec.finish()
        self.at = dec.rd.pos
        return resolve(settlement)

    def witness_front(self) -> OpeningProof | None:
        """The witness opening's part: its deserialization."""
        dec = _decoder_at(self.felts, self.at)
        opening = dec.decode(OpeningProof | None, "witness_opening")
        dec.finish()
        self.at = dec.rd.pos
        return resolve(opening)

    def step(self, index: int) -> None:
        """A witness step part: the index of the polynomial it absorbs or reduces, the next one
        (`calldata.witness`)."""
        self._index(f"witness steps[{index}]", index, "calldata.witness")

    def skip_steps(self, count: int) -> None:
        """Pass `count` witness step parts unread (one felt each): a session mirror reading the
        trees before the contract has read those steps."""
        self.at += count

    def witness_parts(self) -> OpeningProof | None:
        """The witness opening's front, then, if it is present, every step part
        (`witness_steps`) in order."""
        opening = self.witness_front()
        if opening is not None:
            n = len(witness_commitments(self.statement))
            for j in [*range(n), *range(n)]:
                self.step(j)
        return opening

    def openings(
        self, opening: OpeningProof | None, witness_opening: OpeningProof | None
    ) -> tuple[OpeningProof | None, OpeningProof | None]:
        """The openings' group parts (`witness_commitments`' order), then `calldata.extra`, as
        the main contract reads them after the graph class settles."""
        g = self.statement
        witness = partial(witness_commitments, g)
        return read_openings(self.felts, self.at, g.committed, opening, witness, witness_opening)


def _decoder_at(felts: list[int], at: int, kinds: list[str] | None = None) -> Decoder:
    """A decoder of graph calldata whose next read is at `at` (a part after the statement)."""
    dec = open_decoder(felts, KIND_GRAPH, kinds)
    dec.rd.pos = at
    return dec


def decode_graph(felts: list[int]) -> GraphProof:
    """MalformedProofError naming the first failure of `GraphReader`'s reads, in calldata order
    (the contract interleaves them with the walk: `replay_graph_calldata`)."""
    reader = GraphReader.open(felts)
    g = reader.statement
    for i in range(len(g.nodes)):
        reader.check(i)
    nodes = {i: reader.node(i) for i in reversed(range(len(g.nodes)))}
    s = reader.settlement()
    opening, witness_opening = reader.openings(s.opening, reader.witness_parts())
    return GraphProof(
        g,
        reader.outputs,
        [nodes[i] for i in range(len(g.nodes))],
        s.inputs,
        s.weights,
        opening,
        witness_opening,
        s.padding,
    )


@dataclass
class GraphReplay:
    """The graph class's walk over calldata: the reader, the walk, once the settlement is
    read its openings' statements (`GraphWalk.settle`), once the next part is read the
    witness opening's front, and how many of its step parts were read."""

    reader: GraphReader
    walk: GraphWalk
    settled: tuple[Settlement, Poseidon252Channel, Batch, Batch] | None = None
    witness_opening: OpeningProof | None = None
    steps: int = 0

    @property
    def walk_parts(self) -> int:
        """The model walk's parts: 2n + 2, and its witness opening's step parts once its front
        is read and present."""
        n = len(self.reader.statement.nodes)
        if self.witness_opening is None:
            return 2 * n + 2
        return 2 * n + 2 + 2 * len(witness_commitments(self.reader.statement))


def replay_graph_calldata(felts: list[int], parts: int | None = None) -> GraphReplay:
    """What the contract does with graph calldata's walk parts, in its order: the statement
    read and the walk started, then each part read and verified — the nodes' checks, the
    nodes', then the settlement and the witness opening's part (whether it is due) — by the
    graph class, then the witness opening's step parts (their indices; the main contract
    reads them) — over the first `parts` parts (None: all). Raises the first failure's named
    error (the fronts' checks are `deploy.sessions`')."""
    reader = GraphReader.open(felts)
    replay = GraphReplay(reader, GraphWalk.start(reader.statement, reader.outputs))
    read = 0
    while read < replay.walk_parts and (parts is None or read < parts):
        read += 1
        walk = replay.walk
        if replay.witness_opening is not None:
            n = len(witness_commitments(reader.statement))
            reader.step(replay.steps % n)
            replay.steps += 1
            continue
        if not walk.checks.done:
            reader.check(len(walk.checks.views))
            walk.checks.check_next()
        elif walk.left:
            walk.step(reader.node(walk.left - 1))
        elif replay.settled is None:
            settlement = reader.settlement()
            replay.settled = (settlement, *walk.settle(settlement))
        else:
            *_, witness = replay.settled
            replay.witness_opening = reader.witness_front()
            expect_one_hash(witness)
            expect_witness_opening(witness, replay.witness_opening)
    return replay
