"""A model-walk proof: the graph statement, one proof per node, and the settlements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cairn.prover.fields.qm31 import QM31
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.padding import EmptyRowsProof
from cairn.prover.pcs.proof import OpeningProof
from cairn.prover.sameply.proof import SamePolyProof


@dataclass(frozen=True)
class NodeProof:
    """`outputs`: per output of the node, the same-poly merge of the claims its consumers (and
    the public output's draw) left on it — the layer proves one claim per output; `layer`: the
    layer's own proof (its kind's proof type)."""

    outputs: dict[str, SamePolyProof | None]
    layer: Any


@dataclass(frozen=True)
class GraphProof:
    """`outputs`: per committed output, its MLE's value at the r_out the verifier draws (the
    committed opening proves it); `nodes` in the statement's node order (proven last to
    first); `inputs` / `weights` / `opening` settle the claims left on public inputs and
    weights and on committed tensors as a layer walk does; `witness_opening` every node's
    claims on its witness and on fixed tables, in one batch; `padding` shows each committed
    input's padding zero (`GraphStatement.padded_inputs`)."""

    statement: GraphStatement
    outputs: dict[str, QM31]
    nodes: list[NodeProof]
    inputs: dict[str, SamePolyProof | None]
    weights: dict[str, SamePolyProof | None]
    opening: OpeningProof | None = None
    witness_opening: OpeningProof | None = None
    padding: dict[str, EmptyRowsProof] = field(default_factory=dict)

    @property
    def settlement(self) -> Settlement:
        return Settlement(self.inputs, self.weights, self.opening, self.padding)


@dataclass(frozen=True)
class Settlement:
    """What a model walk verifies after its last node: the committed inputs' zero padding, the
    same-poly merges of the claims left on its public inputs and weights, and its committed
    tensors' opening (calldata carries it as a part of its own after the nodes', and the
    witness opening as the next part, so that a session verifies the two openings' fronts in
    two transactions: docs/calldata.md)."""

    inputs: dict[str, SamePolyProof | None]
    weights: dict[str, SamePolyProof | None]
    opening: OpeningProof | None = None
    padding: dict[str, EmptyRowsProof] = field(default_factory=dict)
