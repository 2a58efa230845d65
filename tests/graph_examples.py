"""Model walks the contract reads (tests/cairo_graph_vectors.py, tests/test_devnet_graph.py):
`cairn.examples.GRAPH_BENCHMARKS`' small graphs with committed weights, whose hidden tensors
go through every way a bound travels — none (a projection of a committed weight), a
requantization's clamp, a residual add of a bounded and a public tensor, the column sums of
pooling, attention's int8 inputs, a GELU lookup's table, a LayerNorm's limbs — and `declared`
and `declared_norm`, whose every weight is declared (prover/graph/declared.py), so that bounds
travel through the projections, the gather and the LayerNorm's row norm too. A name ending in
`_io` is the graph with its inputs and outputs committed too; one ending in `_bound` has its
weights bound to model `MODEL_ID` (`CONFIG_HASH`, each weight's index its rank by name)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from cairn import examples
from cairn.prover.graph.declared import WeightRange, certify
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.prover import assemble, commit_graph_io, commit_graph_weights, prove_graph
from cairn.prover.graph.views import Bound, output_bounds
from cairn.prover.layers.add import model as add
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.requant import model as requant
from cairn.prover.layers.requant.params import RequantParams
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, POSEIDON_PARAMS
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import ModelBinding, Statement

MODEL_ID, CONFIG_HASH = 0x7, 0xC0FFEE
GRAPHS = dict(
    zip(
        ("encoder", "lookup_chain", "attention", "ffn", "norm"),
        examples.GRAPH_BENCHMARKS.values(),
    )
)


@dataclasses.dataclass
class _Declared:
    """A graph planned as a verifier reads it with every weight declared (summed, as int8 and
    LayerNorm's weights are at most 16 bits): each requantization fit to its input's declared
    bound, as the MiniLM builder does (models/minilm/walk.py)."""

    layers: list[tuple[Statement, dict[str, str]]] = dataclasses.field(default_factory=list)
    ranges: dict[str, WeightRange] = dataclasses.field(default_factory=dict)
    bounds: dict[str, Bound | None] = dataclasses.field(default_factory=dict)

    def add(self, st: Statement, wiring: dict[str, str]) -> Statement:
        name = {local: wiring.get(local, local) for local in (*st.inputs, *st.outputs, *st.weights)}
        for local, w in st.weights.items():
            self.ranges[name[local]] = WeightRange.of(w, summed=True)
        worst = {local: self.ranges[name[local]].worst(w.shape) for local, w in st.weights.items()}
        hidden = {n: self.bounds[name[n]] for n in st.inputs if name[n] in self.bounds}
        view = dataclasses.replace(st, weights=worst)
        self.bounds |= {name[local]: b for local, b in output_bounds(view, hidden).items()}
        self.layers.append((st, wiring))
        return st

    def requant(self, source: str, y: np.ndarray, target: str, bits: int = 8) -> np.ndarray:
        bound = self.bounds[source]
        p = RequantParams.fit(bound.max if bound else 0, int(np.abs(y).max()), bits)
        st = requant.make_statement(y, p.multiplier, p.shift, p.bits, p.bound.bit_length())
        return self.add(st, {"x": source, "y": target}).outputs["y"]


def declared_example(norm: bool) -> examples.Graph:
    """ids → embed → linear → out: a gather whose tables and a projection whose weights are
    declared, the projection's input bounded by the gather's declared tables, so both
    relations are checked over the integers. With `norm` (verified on a devnet), the
    projection is followed by requant → add → layernorm → linear → out, s1 and s2 public: a
    residual, a LayerNorm whose γ and β are declared, a projection of its row-normed output.
    (Without, no lookup node: their witness openings would push cairo-test's compilation past
    the machine's memory beside the other vectors.)"""
    rng = np.random.default_rng(12)
    seq, vocab, dim = 4, 7, 6
    b = _Declared()
    ids = rng.integers(0, vocab, seq)
    word, position = (rng.integers(-128, 128, (n, dim)) for n in (vocab, seq))
    e = b.add(embed.make_statement(ids, word, position), {"y": "e"}).outputs["y"]
    weights = {"w": rng.integers(-128, 128, (dim, dim)), "b": rng.integers(-128, 128, dim)}
    h = b.add(linear.make_statement(e, weights), {"x": "e", "y": "h" if norm else "out"})
    outputs = ["out"]
    if norm:
        h8 = b.requant("h", h.outputs["y"], "h8")
        r = b.add(add.make_statement(h8, e), {"a": "h8", "b": "e", "y": "r"}).outputs["y"]
        gamma = rng.integers(-2047, 2048, dim)
        beta = rng.integers(-(2**12), 2**12, dim)
        params = examples.layernorm_params(np.full((1, dim), b.bounds["r"].max), gamma)
        st = layernorm.make_statement(r, gamma, beta, params)
        wiring = {"h": "r", "y": "n", "gamma": "ln_gamma", "beta": "ln_beta"}
        n = b.add(st, wiring).outputs["y"]
        weights = {"w": rng.integers(-128, 128, (dim, dim)), "b": rng.integers(-128, 128, dim)}
        b.add(linear.make_statement(n, weights), {"x": "n", "y": "out", "w": "w_2", "b": "b_2"})
        outputs += ["s1", "s2"]
    g, hidden = assemble(b.layers, outputs)
    return dataclasses.replace(g, declared=b.ranges), hidden


GRAPHS["declared"] = functools.partial(declared_example, False)
GRAPHS["declared_norm"] = functools.partial(declared_example, True)


@functools.cache
def graph_proof(name: str) -> GraphProof:
    """The graph proven with its weights committed (Poseidon), as the contract reads it; bound
    to the model for a name with `_bound`, its inputs and outputs committed too with `_io`, its
    witness on Poseidon252 trees with `_poseidon` (else Blake2s)."""
    base = name.replace("_bound", "").replace("_io", "").replace("_poseidon", "")
    graph, hidden = GRAPHS[base]()
    graph, data = commit_graph_weights(graph, POSEIDON_PARAMS)
    if "_bound" in name:
        ranks = {n: i for i, n in enumerate(sorted(graph.committed))}
        graph = dataclasses.replace(graph, binding=ModelBinding(MODEL_ID, CONFIG_HASH, ranks))
    if "_io" in name:
        graph, hidden, io_data = commit_graph_io(graph, hidden, POSEIDON_PARAMS)
        data |= io_data
    witness = "poseidon" if "_poseidon" in name else DEFAULT_WITNESS_HASH
    return prove_graph(graph, hidden, data, witness_hash=witness)


@functools.cache
def graph_certificates(name: str) -> list[WalkProof]:
    """The range walks certifying the graph's declarations over its committed weights."""
    graph, _ = GRAPHS[name]()
    graph, data = commit_graph_weights(graph, POSEIDON_PARAMS)
    return certify(graph.declared, graph.committed, graph.weights, data)
