"""A model-walk (graph) proof as calldata, kind 5: the header, then the GraphProof in Cairo's
Serde order (`serde.py`; each node's layer proof is the variant of that node's kind), then the
Merkle openings of its committed weights' opening and of its witness opening, one part per
tree, as a layer proof's (`walk_calldata`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.proof import Commitment
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.witness import layer_tables
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.header import KIND_GRAPH, VERSION
from cairn.serializer.serde import Encoder, resolve
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
    verify in a graph, or public weights (on chain a graph's weights are committed: public ones
    enter the transcript by a Blake2s digest of all their values, which the contract cannot
    recompute)."""
    for i, node in enumerate(g.nodes):
        if node.kind not in GRAPH_KINDS:
            kinds = ", ".join(GRAPH_KINDS)
            return f"node {i} ({node.kind!r}) is not verified on chain yet (in graphs: {kinds})"
    if g.weights:
        return "a graph's public weights are not verified on chain: prove it with --commit-weights"
    return None


def encode_graph_parts(proof: GraphProof) -> tuple[list[int], list[list[int]]]:
    """(the Serde part, one part per tree: the committed weights' opening's, then the witness
    opening's). ValueError if the contract cannot read this graph (`offchain_reason`)."""
    g = proof.statement
    if reason := offchain_reason(g):
        raise ValueError(reason)
    if len(proof.nodes) != len(g.nodes):
        raise ValueError(f"{len(proof.nodes)} node proofs for {len(g.nodes)} nodes")
    # Several kinds share a proof type: each variant is its node's kind.
    variants = {
        id(p.layer): ONCHAIN_KINDS.index(n.kind) for n, p in zip(g.nodes, proof.nodes, strict=True)
    }
    front = [VERSION, KIND_GRAPH]
    Encoder(lambda layer: variants[id(layer)]).encode(proof, GraphProof, front)
    witness = partial(witness_commitments, g)
    return front, opening_trees(g.committed, proof.opening, witness, proof.witness_opening)


def witness_commitments(g: GraphStatement) -> list[Commitment]:
    """The witness opening's polynomials in `WitnessClaims.batch` order: every node's witness
    commitments (nodes in order, names in order within a node), then the fixed tables by name
    (one polynomial per name, whichever nodes read it)."""
    tables: dict[str, Commitment] = {}
    for node in g.nodes:
        # A kind's tables depend on its dims alone: no view (nor structure check) is needed.
        st = Statement(node.kind, node.dims, {}, {}, {}, {}, node.witness)
        for name, table in layer_tables(LAYERS[node.kind], st).items():
            tables.setdefault(name, table.pinned)
    own = [node.witness[n] for node in g.nodes for n in sorted(node.witness)]
    return own + [tables[n] for n in sorted(tables)]


def encode_graph(proof: GraphProof) -> list[int]:
    front, trees = encode_graph_parts(proof)
    return [*front, *(f for part in trees for f in part)]


def is_graph(felts: list[int]) -> bool:
    """Calldata of kind 5 (what the contract dispatches on; the reader checks the version)."""
    return len(felts) >= 2 and felts[1] == KIND_GRAPH


@dataclass(frozen=True)
class GraphFront:
    """A graph proof's Serde part as the graph class reads it: the proof (its openings without
    Merkle openings) and where the group parts start."""

    proof: GraphProof
    groups_at: int


def io_felts(felts: list[int]) -> list[int]:
    """The GraphStatement's felts in well-formed graph calldata: what the contract's `io_hash`
    hashes (docs/registry.md)."""
    return statement_felts(felts, KIND_GRAPH, GraphStatement)


def decode_graph(felts: list[int]) -> GraphProof:
    """MalformedProofError naming the first failure, as the Cairo readers panic: the Serde
    part (`decode_graph_front`), then the openings' group parts (`read_graph_groups`)."""
    front = decode_graph_front(felts)
    return read_graph_groups(felts, front.groups_at, front.proof)


def decode_graph_front(felts: list[int]) -> GraphFront:
    """The Serde part, as the graph class reads it: the header, the proof's deserialization and
    its tensors' and names' checks; then per node in order its layer proof's variant naming the
    node's kind (`statement.kind`; a node without a proof is the verifier's `graph.shape`), a
    kind verified in graphs, no witness on a kind without advice (both `calldata.offchain`);
    no public weights (`calldata.offchain`); the committed
    weights' hash, roots and sizes (`pcs.hash`, `merkle.digest`, `pcs.size`); without an
    opening to follow `calldata.extra`; then the nested parts."""
    kinds: list[str] = []
    dec = open_decoder(felts, KIND_GRAPH, kinds)
    proof = dec.decode(GraphProof, "proof")
    dec.finish()
    g = proof.statement
    for i, node in enumerate(g.nodes):
        where = f"statement.nodes[{i}]"
        if i < len(kinds) and kinds[i] != node.kind:
            raise MalformedProofError(
                where, f"{node.kind!r} under a {kinds[i]} proof", "statement.kind"
            )
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
    if (not g.committed or proof.opening is None) and proof.witness_opening is None:
        dec.rd.end()
    dec.nested()
    return GraphFront(resolve(proof), dec.rd.pos)


def read_graph_groups(felts: list[int], groups_at: int, proof: GraphProof) -> GraphProof:
    """The committed weights' opening's group parts from `groups_at` (weights by name), then the
    witness opening's (`witness_commitments`), then `calldata.extra`, as the main contract
    reads them after the graph walk."""
    g = proof.statement
    witness = partial(witness_commitments, g)
    opening, witness_opening = read_openings(
        felts, groups_at, g.committed, proof.opening, witness, proof.witness_opening
    )
    return replace(proof, opening=opening, witness_opening=witness_opening)
