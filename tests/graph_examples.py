"""Model walks the contract reads (tests/cairo_graph_vectors.py, tests/test_devnet_graph.py):
small graphs with committed weights whose hidden tensors go through every way a bound
travels — none (a projection of a committed weight), a requantization's clamp, a residual
add of a bounded and a public tensor, the column sums of pooling, attention's int8 inputs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from cairn import examples
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.prover import assemble, commit_graph_weights, prove_graph
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.graph.views import output_bounds
from cairn.prover.layers.add import model as add
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.pool import model as pool
from cairn.prover.layers.requant import model as requant
from cairn.prover.layers.requant.params import RequantParams
from cairn.prover.pcs.params import POSEIDON_PARAMS


def attention() -> tuple[GraphStatement, dict[str, np.ndarray]]:
    """x → qkv → requant ×3 → attn: 5 tokens, e = 7, 2 heads of 3."""
    return examples.attention_block_example(5, 7, 2, 3, False, 0)


def encoder() -> tuple[GraphStatement, dict[str, np.ndarray]]:
    """x → linear → requant → add x → pool: 6 tokens of 5, h = 5."""
    rng = np.random.default_rng(1)
    x = rng.integers(-127, 128, (6, 5), dtype=np.int64)
    weights = {"w": rng.integers(-127, 128, (5, 5)), "b": rng.integers(-127, 128, 5)}
    projected = linear.make_statement(x, weights)
    bound = output_bounds(projected)["y"]
    y = projected.outputs["y"]
    p = RequantParams.fit(bound.max if bound else 0, int(np.abs(y).max()), 8)
    clamped = requant.make_statement(y, p.multiplier, p.shift, p.bits, p.bound.bit_length())
    residual = add.make_statement(clamped.outputs["y"], x)
    pooled = pool.make_statement(residual.outputs["y"])
    return assemble(
        [
            (projected, {"y": "h"}),
            (clamped, {"x": "h", "y": "h8"}),
            (residual, {"a": "h8", "b": "x", "y": "r"}),
            (pooled, {"x": "r", "y": "pooled"}),
        ],
        ["pooled"],
    )


def lookup_chain() -> tuple[GraphStatement, dict[str, np.ndarray]]:
    """ids → embed → requant → pool: 3 tokens of a 6-word vocabulary, d = 4."""
    rng = np.random.default_rng(2)
    word = rng.integers(-127, 128, (6, 4))
    position = rng.integers(-127, 128, (3, 4))
    embedded = embed.make_statement([5, 0, 2], word, position)
    y = embedded.outputs["y"]
    p = RequantParams.fit(254, int(np.abs(y).max()), 8)
    clamped = requant.make_statement(y, p.multiplier, p.shift, p.bits, p.bound.bit_length())
    pooled = pool.make_statement(clamped.outputs["y"])
    return assemble(
        [(embedded, {"y": "e"}), (clamped, {"x": "e", "y": "e8"}), (pooled, {"x": "e8"})],
        ["y"],
    )


def params_refused() -> GraphProof:
    """`lookup_chain`'s proof under a statement whose word table is 2^21 rows of 4 (2^23 values,
    the commitment's root made up): every node's check passes, but its opening's term (at
    2^23 values) and the witness opening's together exceed 2^-96 (`graph.params`)."""
    proof = graph_proof("lookup_chain")
    g = proof.statement
    rows = 1 << 21
    node = g.nodes[0]
    dims = (node.dims[0], rows, rows, *node.dims[3:])
    word = g.committed["word_0"]
    big = dataclasses.replace(
        word,
        shape=(rows, word.shape[1]),
        commitment=dataclasses.replace(word.commitment, n_vars=23),
    )
    nodes = (dataclasses.replace(node, dims=dims), *g.nodes[1:])
    g = dataclasses.replace(g, nodes=nodes, committed={**g.committed, "word_0": big})
    return dataclasses.replace(proof, statement=g)


GRAPHS: dict[str, Callable[[], tuple[GraphStatement, dict[str, np.ndarray]]]] = {
    "attention": attention,
    "encoder": encoder,
    "lookup_chain": lookup_chain,
}


def graph_proof(name: str) -> GraphProof:
    """The graph proven with its weights committed (Poseidon), as the contract reads it."""
    graph, hidden = GRAPHS[name]()
    graph, weight_data = commit_graph_weights(graph, POSEIDON_PARAMS)
    return prove_graph(graph, hidden, weight_data)
