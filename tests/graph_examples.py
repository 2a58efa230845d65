"""Model walks the contract reads (tests/cairo_graph_vectors.py, tests/test_devnet_graph.py):
`cairn.examples.GRAPH_BENCHMARKS`' small graphs with committed weights, whose hidden tensors
go through every way a bound travels — none (a projection of a committed weight), a
requantization's clamp, a residual add of a bounded and a public tensor, the column sums of
pooling, attention's int8 inputs, a GELU lookup's table, a LayerNorm's limbs. A name ending
in `_io` is the graph with its inputs and outputs committed too; one ending in `_bound` has
its weights bound to model `MODEL_ID` (`CONFIG_HASH`, each weight's index its rank by
name)."""

from __future__ import annotations

import dataclasses
import functools

from cairn import examples
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.prover import commit_graph_io, commit_graph_weights, prove_graph
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.walk.statement import ModelBinding

MODEL_ID, CONFIG_HASH = 0x7, 0xC0FFEE
GRAPHS = dict(
    zip(
        ("encoder", "lookup_chain", "attention", "ffn", "norm"),
        examples.GRAPH_BENCHMARKS.values(),
    )
)


@functools.cache
def graph_proof(name: str) -> GraphProof:
    """The graph proven with its weights committed (Poseidon), as the contract reads it; bound
    to the model for a name with `_bound`, its inputs and outputs committed too with `_io`."""
    graph, hidden = GRAPHS[name.replace("_bound", "").replace("_io", "")]()
    graph, data = commit_graph_weights(graph, POSEIDON_PARAMS)
    if "_bound" in name:
        ranks = {n: i for i, n in enumerate(sorted(graph.committed))}
        graph = dataclasses.replace(graph, binding=ModelBinding(MODEL_ID, CONFIG_HASH, ranks))
    if "_io" in name:
        graph, hidden, io_data = commit_graph_io(graph, hidden, POSEIDON_PARAMS)
        data |= io_data
    return prove_graph(graph, hidden, data)
