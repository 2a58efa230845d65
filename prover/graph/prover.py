"""Model-walk prover: advice for every node, the graph statement, then the nodes last to first,
each output's claims merged into one before its layer reduces it to claims on its inputs."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.graph.proof import GraphProof, NodeProof
from cairn.prover.graph.statement import (
    GraphStatement,
    Node,
    WitnessClaims,
    absorb_graph,
    route_claims,
)
from cairn.prover.graph.views import layer_statements, with_values, worst_cases
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import evaluate_tensor, pad_tensor
from cairn.prover.padding import prove_outside_zero
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, WITNESS_PCS, PcsParams
from cairn.prover.pcs.prover import CommitmentData, commit_tensor, open_batch
from cairn.prover.ranges import Tensors
from cairn.prover.walk.prover import merge_claims, merge_tensor
from cairn.prover.walk.statement import Statement, draw_output_claims
from cairn.prover.walk.witness import layer_tables, open_witness


def assemble(
    layers: Sequence[tuple[Statement, Mapping[str, str]]], outputs: Collection[str]
) -> tuple[GraphStatement, dict[str, np.ndarray]]:
    """A graph from layer statements (each computed by its kind's `make_statement`) and, per
    layer, a renaming of its tensor and weight names to the graph's (unlisted names are kept).
    Tensors no layer produces are the inputs; `outputs` are public; the rest are hidden and
    returned with their values. ValueError if two layers disagree on a tensor's values."""
    values: dict[str, np.ndarray] = {}
    weights: dict[str, np.ndarray] = {}
    produced: set[str] = set()
    nodes = []
    for i, (st, names) in enumerate(layers):
        wiring = {
            group: {local: names.get(local, local) for local in getattr(st, group)}
            for group in ("inputs", "outputs", "weights")
        }
        for group, store in (("inputs", values), ("outputs", values), ("weights", weights)):
            for local, name in wiring[group].items():
                t = np.asarray(getattr(st, group)[local], dtype=np.int64)
                if name in store and not np.array_equal(store[name], t):
                    raise ValueError(f"layer {i} ({st.kind}): {local} differs from {name!r}")
                store[name] = t
        produced |= set(wiring["outputs"].values())
        nodes.append(Node(st.kind, tuple(st.dims), **wiring))
    if missing := set(outputs) - produced:
        raise ValueError(f"outputs no layer produces: {sorted(missing)}")
    hidden = {name: values[name] for name in produced - set(outputs)}
    g = GraphStatement(
        tuple(nodes),
        {name: t.shape for name, t in hidden.items()},
        {name: t for name, t in values.items() if name not in produced},
        {name: values[name] for name in outputs},
        weights,
    )
    return g, hidden


def commit_graph_weights(
    g: GraphStatement, params: PcsParams, names: Collection[str] | None = None
) -> tuple[GraphStatement, dict[str, CommitmentData]]:
    """Commit to the named weights (all by default); the statement then binds them by root."""
    made = {n: commit_tensor(g.weights[n], params) for n in sorted(names or g.weights)}
    committed = {n: ct for n, (ct, _) in made.items()}
    return replace(g, committed={**g.committed, **committed}), {n: d for n, (_, d) in made.items()}


def commit_graph_io(
    g: GraphStatement, hidden: Tensors, params: PcsParams
) -> tuple[GraphStatement, dict[str, np.ndarray], dict[str, CommitmentData]]:
    """Commit to every input and output but those a node's check reads (layernorm's row
    statistics, posenc's x and o: `LayerSpec.reads`, `committable_reads`, which must stay
    public): the statement then binds them by root, their values join the prover's hidden
    ones (returned, with the commitments' data). What a model walk needs on chain when its
    activations exceed a transaction's calldata."""
    read = {
        {**node.inputs, **node.outputs}.get(local)
        for node in g.nodes
        for local in (*LAYERS[node.kind].reads, *LAYERS[node.kind].committable_reads)
    }
    io = {**g.inputs, **g.outputs}
    tensors = {n: t for n, t in io.items() if n not in read}
    made = {n: commit_tensor(tensors[n], params) for n in sorted(tensors)}
    committed = {**g.committed, **{n: ct for n, (ct, _) in made.items()}}
    inputs = {n: t for n, t in g.inputs.items() if n in read}
    outputs = {n: t for n, t in g.outputs.items() if n in read}
    g = replace(g, inputs=inputs, outputs=outputs, committed=committed)
    return g, {**hidden, **tensors}, {n: d for n, (_, d) in made.items()}


Progress = Callable[[str, int, str], None]
"""(stage, node, kind) as each stage starts: "witness" per node (its advice committed), then
"checks" (node −1: every node's statement, the transcript's start), "walk" per node from the
last, "settlement" (node −1: public inputs and weights, the openings)."""


def _advise(
    g: GraphStatement, hidden: Tensors, pcs: PcsParams, report: Progress
) -> tuple[GraphStatement, list[object], dict[tuple[int, str], CommitmentData]]:
    """Every node's witness, committed before anything is absorbed; the commitments' data by
    (node, name), for the witness opening."""
    nodes, advice, witness_data = list(g.nodes), [], {}
    for i, view in enumerate(worst_cases(g)):
        report("witness", i, nodes[i].kind)
        advise = LAYERS[nodes[i].kind].advise
        if advise is None:
            advice.append(None)
            continue
        made, data = advise(with_values(g, nodes[i], hidden, view), pcs)
        nodes[i] = replace(nodes[i], witness={n: d.commitment for n, d in made.items()})
        witness_data |= {(i, n): d for n, d in made.items()}
        advice.append(data)
    return replace(g, nodes=tuple(nodes)), advice, witness_data


def prove_graph(
    g: GraphStatement,
    hidden: Tensors,
    committed_data: Mapping[str, CommitmentData] | None = None,
    progress: Progress | None = None,
    witness_hash: str = DEFAULT_WITNESS_HASH,
) -> GraphProof:
    """`hidden`: the values of the hidden tensors and the committed inputs and outputs (from
    `assemble`, `commit_graph_io`); `committed_data` (from commit_graph_weights and
    commit_graph_io) must cover exactly `g.committed`; `progress` is told when each stage
    starts (see Progress); every node's witness is committed with
    `WITNESS_PCS[witness_hash]`."""
    report = progress or (lambda _stage, _i, _kind: None)
    committed_data = committed_data or {}
    if set(committed_data) != set(g.committed):
        raise ValueError("committed_data must cover exactly the committed tensors")
    g, advice, witness_data = _advise(g, hidden, WITNESS_PCS[witness_hash], report)
    report("checks", -1, "")
    statements = [
        with_values(g, node, hidden, view)
        for node, view in zip(g.nodes, layer_statements(g), strict=True)
    ]
    channel = Poseidon252Channel()
    absorb_graph(channel, g)
    committed_outputs = g.committed_outputs()
    drawn = draw_output_claims(
        channel, g.outputs, committed_outputs, lambda n, p: evaluate_tensor(hidden[n], p)
    )
    claims: dict[str, list[Claim]] = {name: [c] for name, c in drawn.items()}
    weight_claims = {name: [drawn[name]] for name in sorted(committed_outputs)}
    witness_claims = WitnessClaims()
    values = {**g.outputs, **hidden}
    proofs = []
    for i in reversed(range(len(g.nodes))):
        node, st = g.nodes[i], statements[i]
        report("walk", i, node.kind)
        merges, outputs = {}, {}
        for local in sorted(node.outputs):
            name = node.outputs[local]
            merges[local], outputs[local] = merge_tensor(values[name], claims.pop(name), channel)
        layer, left = LAYERS[node.kind].prove(st, outputs, channel, advice[i])
        advice[i] = None  # the node's traces: only its witness commitment waits for the opening
        route_claims(i, node, left.inputs, left.weights, claims, weight_claims)
        witness_claims.add(i, node, layer_tables(LAYERS[node.kind], st), left.witness)
        proofs.append(NodeProof(merges, layer))
    proofs.reverse()
    report("settlement", -1, "")
    padding = {}
    for name in g.padded_inputs():
        padding[name], point = prove_outside_zero(
            [embed(pad_tensor(hidden[name]))], hidden[name].shape, channel
        )
        claims[name].append(Claim(tuple(point), padding[name].values[0]))
    for name in sorted(g.committed_inputs()):
        weight_claims[name] = claims.pop(name)
    inputs = merge_claims(g.inputs, claims, channel)
    public = {n: t for n, t in g.weights.items() if n not in g.committed}
    weights = merge_claims(public, weight_claims, channel)
    opening = None
    if committed_data:
        names = sorted(committed_data)
        opening = open_batch([(committed_data[n], weight_claims[n]) for n in names], channel)
    tables = {n: t.data() for n, t in witness_claims.tables.items()}
    witness = open_witness(witness_claims.batch(witness_data, tables), channel)
    outputs = {name: drawn[name].value for name in sorted(committed_outputs)}
    g = replace(g, weights=public)
    return GraphProof(g, outputs, proofs, inputs, weights, opening, witness, padding)
