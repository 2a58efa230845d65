"""A model as a graph of layers: the public statement of a model-walk proof.

Each node is one layer of a registered kind whose tensors are wired, by name, to the graph's
tensors. Tensors no node produces are the model's inputs; the model's outputs are named; every
other tensor a node produces is hidden — only its shape is public. Inputs and outputs are public
or bound by commitments; weights are the graph's, public or committed, and any node may read
any of them (docs/model-walk.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.graph.declared import WeightRange
from cairn.prover.mle import next_pow2
from cairn.prover.pcs.proof import Commitment, CommittedTensor
from cairn.prover.ranges import Tensors
from cairn.prover.walk.layer import FixedTable
from cairn.prover.walk.statement import (
    ModelBinding,
    absorb_binding,
    absorb_commitment,
    absorb_committed,
    absorb_dims,
    absorb_shape,
    absorb_tensors,
    domain_tag,
)
from cairn.prover.walk.witness import batch, expect_claims

KIND = "graph"
NAME_BYTES = 31
"""A tensor or weight name is printable ASCII of at most 31 bytes: one felt252 in the transcript."""
GROUPS = ("inputs", "outputs", "weights")


@dataclass(frozen=True)
class Node:
    """One layer: its kind and dims, and per group a map from the layer's own tensor names to
    the graph's (weights to the graph's weight names). `witness`: the layer's commitments to
    its own advice (LayerSpec.advise), bound before any challenge."""

    kind: str
    dims: tuple[int, ...]
    inputs: Mapping[str, str]
    outputs: Mapping[str, str]
    weights: Mapping[str, str] = field(default_factory=dict)
    witness: Mapping[str, Commitment] = field(default_factory=dict)


@dataclass(frozen=True)
class GraphStatement:
    """Nodes in topological order, the hidden tensors' shapes, the public inputs and outputs,
    the public weights, and `committed`: the weights, inputs and outputs bound by commitments
    (all of one hash), whose role the wiring says — a committed tensor a node reads as an input
    or writes as an output is a committed input or output (`io`), the rest are weights. The
    prover's statement also holds committed weights' values in `weights`; a committed input's
    or output's values are among the prover's hidden values (`prove_graph`)."""

    nodes: tuple[Node, ...]
    hidden: Mapping[str, tuple[int, ...]]
    inputs: Tensors
    outputs: Tensors
    weights: Tensors
    committed: Mapping[str, CommittedTensor] = field(default_factory=dict)
    binding: ModelBinding | None = None
    """The registered model the committed weights are of, if any (docs/registry.md): on chain
    the record's model id, each committed weight checked against its registry entry."""
    declared: Mapping[str, WeightRange] = field(default_factory=dict)
    """Committed weights read at a declared range (prover/graph/declared.py), which range
    proofs over their commitments show apart from this proof."""

    def produced(self) -> set[str]:
        return {name for node in self.nodes for name in node.outputs.values()}

    def io(self) -> dict[str, CommittedTensor]:
        """The committed inputs and outputs: committed tensors a node reads or writes as a
        tensor rather than a weight."""
        wired = {n for node in self.nodes for n in (*node.inputs.values(), *node.outputs.values())}
        return {n: c for n, c in self.committed.items() if n in wired}

    def committed_weights(self) -> set[str]:
        return self.committed.keys() - self.io().keys()

    def committed_inputs(self) -> set[str]:
        return self.io().keys() - self.produced()

    def committed_outputs(self) -> dict[str, tuple[int, ...]]:
        """The committed outputs' shapes, by name."""
        produced = self.produced()
        return {n: tuple(c.shape) for n, c in self.io().items() if n in produced}

    def weight_names(self) -> set[str]:
        return set(self.weights) | self.committed_weights()

    def input_names(self) -> set[str]:
        return set(self.inputs) | self.committed_inputs()

    def output_names(self) -> set[str]:
        return set(self.outputs) | self.committed_outputs().keys()

    def padded_inputs(self) -> dict[str, CommittedTensor]:
        """The committed inputs whose shape has padding: their commitments bind the padded
        table, which the walk shows zero outside the shape (`prover/padding.py`)."""
        inputs = self.committed_inputs()
        return {
            n: c
            for n, c in sorted(self.committed.items())
            if n in inputs and any(next_pow2(d) != d for d in c.shape)
        }

    def unseen(self) -> dict[str, tuple[int, ...]]:
        """The shapes of the tensors whose values the statement does not hold: the hidden ones
        and the committed inputs and outputs."""
        return {**self.hidden, **{n: tuple(c.shape) for n, c in self.io().items()}}


def name_felt(name: str) -> int:
    """The name's bytes as one big-endian integer (injective on printable ASCII)."""
    raw = name.encode("ascii", errors="replace")
    if not name or len(raw) > NAME_BYTES or not name.isprintable() or not name.isascii():
        raise VerificationError("graph.shape", f"name {name!r}: 1..{NAME_BYTES} printable ASCII")
    return int.from_bytes(raw, "big")


def tensor_digest(t: np.ndarray) -> list[int]:
    """Blake2s of the tensor's values (int64, little-endian, row-major) as eight u32 words: a
    public weight enters the transcript by this digest, so a model's millions of weights cost
    one hash, not one absorption each, and a file may leave them to the model they come from."""
    digest = hashlib.blake2s(np.ascontiguousarray(t, dtype="<i8").tobytes()).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4)]


def _absorb_wiring(channel: Channel, wiring: Mapping[str, str]) -> None:
    channel.mix_u64(len(wiring))
    for local in sorted(wiring):
        channel.mix_root(name_felt(local))
        channel.mix_root(name_felt(wiring[local]))


def _absorb_named(channel: Channel, tensors: Tensors) -> None:
    channel.mix_u64(len(tensors))
    for name in sorted(tensors):
        channel.mix_root(name_felt(name))
    absorb_tensors(channel, tensors)


def absorb_graph(channel: Channel, g: GraphStatement) -> None:
    """Everything before the first challenge: the binding, structure, shapes, weights, declared
    ranges, witness, public I/O, committed I/O."""
    channel.mix_root(domain_tag(KIND))
    if g.binding is not None:
        absorb_binding(channel, g.binding)
    channel.mix_u64(len(g.nodes))
    for node in g.nodes:
        absorb_dims(channel, node.kind, node.dims)
        for group in GROUPS:
            _absorb_wiring(channel, getattr(node, group))
    channel.mix_u64(len(g.hidden))
    for name in sorted(g.hidden):
        channel.mix_root(name_felt(name))
        absorb_shape(channel, g.hidden[name])
    names = sorted(g.weight_names())
    channel.mix_u64(len(names))
    for name in names:
        channel.mix_root(name_felt(name))
        if name in g.committed:
            absorb_shape(channel, g.committed[name].shape)
            absorb_commitment(channel, g.committed[name].commitment)
        else:
            absorb_shape(channel, g.weights[name].shape)
            channel.mix_u32s(tensor_digest(g.weights[name]))
    if g.declared:  # as a binding: tagged, and absent when empty
        channel.mix_root(domain_tag("declared"))
        channel.mix_u64(len(g.declared))
    for name in sorted(g.declared):
        r = g.declared[name]
        channel.mix_root(name_felt(name))
        channel.mix_u64(r.bits << 1 | r.summed)
        if r.col_max is not None:
            channel.mix_u64(r.col_max)
    for node in g.nodes:
        channel.mix_u64(len(node.witness))
        for name in sorted(node.witness):
            channel.mix_root(name_felt(name))
            absorb_commitment(channel, node.witness[name])
    _absorb_named(channel, g.inputs)
    _absorb_named(channel, g.outputs)
    io = g.io()
    channel.mix_u64(len(io))
    absorb_committed(channel, io)


@dataclass
class WitnessClaims:
    """The claims the nodes leave for the witness opening: on a node's own commitments by
    (node, name), since names repeat across nodes; on a fixed table by its name alone, so the
    layers that share a table share one polynomial in the opening."""

    own: dict[tuple[int, str], list[Claim]] = field(default_factory=dict)
    tables: dict[str, FixedTable] = field(default_factory=dict)
    on_tables: dict[str, list[Claim]] = field(default_factory=dict)

    def add(
        self,
        index: int,
        node: Node,
        tables: Mapping[str, FixedTable],
        claims: Mapping[str, list[Claim]],
    ) -> None:
        """`graph.claims` unless the node leaves claims on exactly its witness and tables."""
        where = f"node {index} ({node.kind})"
        expect_claims("graph.claims", where, node.witness.keys() | tables.keys(), claims)
        for name, table in tables.items():
            if self.tables.setdefault(name, table).pinned != table.pinned:
                raise VerificationError("graph.claims", f"{where}: table {name!r} differs")
            self.on_tables.setdefault(name, []).extend(claims[name])
        self.own |= {(index, name): list(claims[name]) for name in node.witness}

    def batch(
        self, own: Mapping[tuple[int, str], Any], tables: Mapping[str, Any]
    ) -> list[tuple[Any, list[Claim]]]:
        """The opening's polynomials (commitments, or the prover's data) and their claims: the
        nodes' witness in (node, name) order, then the tables in name order."""
        return batch(own, self.own) + batch(tables, self.on_tables)


def route_claims(
    index: int,
    node: Node,
    inputs: Mapping[str, list[Claim]],
    weights: Mapping[str, list[Claim]],
    tensor_claims: dict[str, list[Claim]],
    weight_claims: dict[str, list[Claim]],
) -> None:
    """Hand a layer's claims on its inputs and weights to the graph's tensors and weights:
    a hidden input's claims become claims on its producer's output."""
    if set(inputs) != set(node.inputs) or set(weights) != set(node.weights):
        raise VerificationError(
            "graph.claims", f"node {index} ({node.kind}) must leave claims on each input and weight"
        )
    # In local-name order, whatever order the layer left them in: a node reading one tensor
    # under two names adds its claims in an order the Cairo walk follows too.
    for local in sorted(inputs):
        tensor_claims.setdefault(node.inputs[local], []).extend(inputs[local])
    for local in sorted(weights):
        weight_claims.setdefault(node.weights[local], []).extend(weights[local])
