"""Each node's layer statement, as the verifier can know it, and the graph's structure checks.

A hidden tensor's values are unknown to the verifier, but a bound on them is known: its
producer's relation with that `result` (prover/ranges.py) holds over the integers once checked,
so every entry lies within the relation's bound. Bounds are monotone in their operands'
magnitudes, so a consumer's bounds computed on a tensor with *every* entry at that bound hold
for the real one: the verifier reads a hidden tensor as that worst case, and each layer's own
`check` (shapes, parameters, statement.range) runs on it unchanged. A tensor whose producer
reads a committed weight (or an unbounded tensor) has no bound: it is `unbounded`, and the
relations that read it hold mod p only, as relations on committed weights do — unless the
graph declares the weight's range (prover/graph/declared.py): then it is read, like a hidden
tensor, at its worst case (every entry at the declared magnitude, with the declared column sums
of |w| when summed).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.graph.statement import GraphStatement, Node, name_felt
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import tensor_vars
from cairn.prover.pcs.params import FIELD_BITS, PARAMS
from cairn.prover.pcs.proof import Commitment
from cairn.prover.ranges import Tensors, mod_p_only, with_row_norm
from cairn.prover.soundness import bits, shortfall
from cairn.prover.walk.layer import SUMCHECK_ERROR, LayerSpec
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.witness import layer_tables, layer_terms, opening_error


def _fail(message: str) -> None:
    raise VerificationError("graph.shape", message)


MAX_HIDDEN_VARS = 24
"""A hidden tensor's padded size is at most 2^24 entries, the witness PCS's largest polynomial:
no layer proves a larger one, and the verifier reads a hidden tensor at its worst case."""


def check_structure(g: GraphStatement) -> None:
    """Kinds known, names well formed and distinct across the inputs, outputs, hidden tensors
    and weights, a node's local names distinct across its inputs, outputs and weights, nodes in
    topological order, every tensor produced once (inputs never), read after it is produced,
    and used; every weight read; hidden shapes given for exactly the produced tensors that are
    not outputs, none of them or of the committed inputs and outputs beyond 2^MAX_HIDDEN_VARS
    padded entries, and a committed one's size its shape's; then a binding names a model and
    exactly the committed weights (`statement.binding`)."""
    if not g.nodes:
        _fail("a graph has at least one node")
    names = [*g.inputs, *g.outputs, *g.hidden, *g.weight_names(), *g.io()]
    for name in names:
        name_felt(name)
    if len(set(names)) != len(names):
        _fail("a name is given to two of the inputs, outputs, hidden tensors and weights")
    unseen = g.unseen()
    for name, shape in unseen.items():
        if tensor_vars(shape) > MAX_HIDDEN_VARS:
            _fail(f"{name!r} of {shape}: more than 2^{MAX_HIDDEN_VARS} padded entries")
    for name, ct in g.io().items():
        if ct.commitment.n_vars != tensor_vars(ct.shape):
            _fail(f"commitment {name!r} has the wrong size")
    inputs, outputs = g.input_names(), g.output_names()
    produced: set[str] = set()
    read: set[str] = set()
    weights: set[str] = set()
    for i, node in enumerate(g.nodes):
        if node.kind not in LAYERS:
            _fail(f"node {i}: unknown kind {node.kind!r}")
        for local, name in (*node.inputs.items(), *node.outputs.items(), *node.weights.items()):
            name_felt(local)
            name_felt(name)
        if len({*node.inputs, *node.outputs, *node.weights}) != (
            len(node.inputs) + len(node.outputs) + len(node.weights)
        ):
            _fail(f"node {i} ({node.kind}) names two of its tensors alike")
        for name in node.inputs.values():
            if name not in produced and name not in inputs:
                _fail(f"node {i} ({node.kind}) reads {name!r} before any node produces it")
        read |= set(node.inputs.values())
        wiring = {**node.inputs, **node.outputs}
        spec = LAYERS[node.kind]
        for local in (*spec.reads, *spec.committable_reads):
            if wiring.get(local) in unseen:
                _fail(f"node {i} ({node.kind}) reads {local!r}'s values: it must be public")
        for name in node.outputs.values():
            if name in produced or name in inputs:
                _fail(f"node {i} ({node.kind}) writes {name!r}, which is already defined")
            produced.add(name)
        if len(set(node.outputs.values())) != len(node.outputs):
            _fail(f"node {i} ({node.kind}) writes one tensor twice")
        missing = set(node.weights.values()) - g.weight_names()
        if missing:
            _fail(f"node {i} ({node.kind}) reads unknown weights {sorted(missing)}")
        weights |= set(node.weights.values())
    if unused := (inputs | produced) - read - outputs:
        _fail(f"tensors nobody reads: {sorted(unused)}")
    if outputs - produced:
        _fail(f"outputs no node produces: {sorted(outputs - produced)}")
    if set(g.hidden) != produced - outputs:
        _fail("hidden shapes must be given for exactly the produced tensors that are not outputs")
    if unused := g.weight_names() - weights:
        _fail(f"weights nobody reads: {sorted(unused)}")
    committed_weights = g.committed_weights()
    for name, declared in sorted(g.declared.items()):
        if name not in committed_weights:
            raise VerificationError("graph.declared", f"{name}: not a committed weight")
        if problem := declared.problem(g.committed[name].shape):
            raise VerificationError("graph.declared", f"{name}: {problem}")
    b = g.binding
    if b is not None and (
        b.model_id == 0 or not committed_weights or b.weights.keys() != committed_weights
    ):
        raise VerificationError("statement.binding", "must name a model and every committed weight")


@dataclass(frozen=True)
class Bound:
    """What the verifier knows of a hidden tensor: |entry| ≤ `max` and, when its producer
    declares one, Σ x² ≤ `row_sq` over every row (last axis)."""

    max: int
    row_sq: int | None = None


def _output_bound(spec: LayerSpec, st: Statement, local: str) -> Bound | None:
    """The least bounds the checked relations give for output `local`, if any relation can."""
    skipped = st.skipped()
    tensors = {**st.inputs, **st.outputs, **st.weights}
    usable = [
        rel for rel in spec.relations if rel.result == local and not skipped & set(rel.operands)
    ]
    if not usable:
        return None
    try:
        row_sq = [rel.row_sq(tensors, st.dims) for rel in usable if rel.row_sq]
        return Bound(min(rel.bound(tensors, st.dims) for rel in usable), min(row_sq, default=None))
    except (LookupError, ValueError, ArithmeticError):
        # Dims or tensors the kind's check refuses (a requant without its bits, an add without
        # its a, an embed of 0-row blocks): that check runs before any consumer's, so no
        # bound is read.
        return None


def _worst(shape: tuple[int, ...], bound: Bound | None) -> np.ndarray:
    """Every entry at the bound (0 if none), its declared row norm attached; beyond (p−1)/2
    the producer's own check refuses, so the fill stops just past it."""
    value = np.int64(min(bound.max, HALF + 1) if bound else 0)
    fill = np.broadcast_to(value, shape)  # one value, read-only: no memory per entry
    return with_row_norm(fill, bound.row_sq) if bound and bound.row_sq is not None else fill


def at_bounds(
    st: Statement, inputs: Mapping[str, Bound | None], outputs: Collection[str] = ()
) -> tuple[Statement, dict[str, Bound | None]]:
    """`st` as the verifier sees it: each input named in `inputs` (a hidden tensor) read as its
    worst case, every entry at its bound (None: no bound, so unbounded), and each output named
    in `outputs` (hidden) at the bound the layer's relations then give it, returned too."""
    st = replace(
        st,
        inputs={**st.inputs, **{n: _worst(st.inputs[n].shape, b) for n, b in inputs.items()}},
        unbounded=st.unbounded | {n for n, b in inputs.items() if b is None},
    )
    bounds = {n: _output_bound(LAYERS[st.kind], st, n) for n in outputs}
    st = replace(
        st,
        outputs={**st.outputs, **{n: _worst(st.outputs[n].shape, b) for n, b in bounds.items()}},
        unbounded=st.unbounded | {n for n, b in bounds.items() if b is None},
    )
    return st, bounds


def output_bounds(
    st: Statement, inputs: Mapping[str, Bound | None] | None = None
) -> dict[str, Bound | None]:
    """What each output of a layer statement is bounded by (None: no bound) when the inputs
    named in `inputs` are hidden with those bounds: what a consumer of the output, hidden in a
    graph, may assume, and what a prover building a graph must plan with."""
    return at_bounds(st, inputs or {}, st.outputs)[1]


def _worst_case(
    g: GraphStatement,
    node: Node,
    bounds: dict[str, Bound | None],
) -> Statement:
    """The node's statement with public tensors as they are, hidden ones (and committed outputs)
    at their bound, committed weights and inputs by their commitments (a declared weight also at
    its declared worst case, `Statement.ranged`); records the bounds of the hidden tensors it
    produces.

    A committed input is to its readers what a layer walk's committed input is: relations on it
    hold mod p only, and a kind that sums over its padding shows that padding zero (pool's
    empty rows). A committed output is, to its producer and readers, a hidden tensor: the
    opening binds the commitment to what the producer proved, so it keeps the producer's bound.
    """
    hidden = {**g.hidden, **g.committed_outputs()}
    committed = g.committed.keys() - hidden.keys()

    def tensor(name: str) -> np.ndarray:
        if name in g.inputs:
            return g.inputs[name]
        return g.outputs[name] if name in g.outputs else _worst(hidden[name], None)

    st = Statement(
        node.kind,
        node.dims,
        {local: tensor(name) for local, name in node.inputs.items() if name not in committed},
        {local: tensor(name) for local, name in node.outputs.items()},
        {local: g.weights[name] for local, name in node.weights.items() if name in g.weights},
        {
            local: g.committed[name]
            for local, name in (*node.weights.items(), *node.inputs.items())
            if name in committed
        },
        node.witness,
    )
    ranged = {local: name for local, name in node.weights.items() if name in g.declared}
    worst = {
        local: g.declared[name].worst(tuple(g.committed[name].shape))
        for local, name in ranged.items()
    }
    st = replace(st, weights={**st.weights, **worst}, ranged=frozenset(ranged))
    hidden_in = {local: bounds[name] for local, name in node.inputs.items() if name in hidden}
    hidden_out = {local: name for local, name in node.outputs.items() if name in hidden}
    st, produced = at_bounds(st, hidden_in, hidden_out)
    bounds.update({name: produced[local] for local, name in hidden_out.items()})
    return st


def worst_cases(g: GraphStatement) -> list[Statement]:
    """Every node's statement, hidden tensors read as their worst case, after the structure
    checks (the layers' own checks not yet run)."""
    check_structure(g)
    bounds: dict[str, Bound | None] = {}
    return [_worst_case(g, node, bounds) for node in g.nodes]


@dataclass
class StatementChecks:
    """The verifier's view of each node, checked one node at a time in node order (each
    producer before its consumers): the views so far and the bounds of the hidden tensors they
    produce. An on-chain session checks the nodes this way, across transactions."""

    g: GraphStatement
    views: list[Statement] = field(default_factory=list)
    bounds: dict[str, Bound | None] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return len(self.views) == len(self.g.nodes)

    def check_next(self) -> None:
        """The next node's view checked by its layer's own `check` (shapes, parameters,
        statement.range, witness layout); after the last node, the whole proof's soundness
        (`graph.params`)."""
        st = _worst_case(self.g, self.g.nodes[len(self.views)], self.bounds)
        LAYERS[st.kind].check(st)
        self.views.append(st)
        if self.done and (problem := shortfall(lambda: error_terms(self.g, self.views))):
            raise VerificationError("graph.params", problem)


def layer_statements(g: GraphStatement) -> list[Statement]:
    """The verifier's view of every node after the structure checks, each checked
    (`StatementChecks`), then the whole proof's soundness; the prover runs it too."""
    check_structure(g)
    checks = StatementChecks(g)
    while not checks.done:
        checks.check_next()
    return checks.views


def error_terms(g: GraphStatement, views: Sequence[Statement]) -> dict[str, float]:
    """The union bound over the nodes' own terms (a sum-check layer: SUMCHECK_ERROR), the
    walk's same-poly merges (at most one per tensor and weight, (2n + 1)/|F| each), the
    committed inputs' padding sum-checks (SUMCHECK_ERROR each), the committed tensors' one
    opening and the witness's one opening (docs/model-walk.md, "Soundness")."""
    shapes = [*g.hidden.values(), *(t.shape for t in (*g.inputs.values(), *g.outputs.values()))]
    shapes += [t.shape for t in g.weights.values()]
    shapes += [tuple(c.shape) for c in g.committed.values()]
    merges = sum(2 * tensor_vars(shape) + 1 for shape in shapes)
    terms = {"same-poly merges": merges * 2.0**-FIELD_BITS}
    opened: list[Commitment] = []
    tables: dict[str, Commitment] = {}
    claims = 0
    for i, st in enumerate(views):
        spec = LAYERS[st.kind]
        terms |= {f"node {i} ({st.kind}) {name}": p for name, p in layer_terms(spec, st).items()}
        opened += st.witness.values()
        tables |= {name: t.pinned for name, t in layer_tables(spec, st).items()}
        claims += spec.opening_claims
    if g.committed:
        (hash_,) = {c.commitment.hash for c in g.committed.values()} or {"poseidon"}
        largest = max(c.commitment.n_vars for c in g.committed.values())
        # The opening's claims: each node's on its weights and committed inputs, one per
        # committed output (drawn at the start) and per padding sum-check.
        inputs = g.committed_inputs()
        reads = sum(len(node.weights) for node in g.nodes) + len(g.committed_outputs())
        reads += sum(name in inputs for node in g.nodes for name in node.inputs.values())
        padded = g.padded_inputs()
        reads += len(padded)
        terms |= {f"padding of {name}": SUMCHECK_ERROR for name in padded}
        terms["weights opening"] = 2.0 ** -PARAMS[hash_].security_bits(largest, reads)
    return terms | opening_error([*opened, *tables.values()], claims)


def security_bits(g: GraphStatement) -> float:
    return bits(error_terms(g, worst_cases(g)))


def with_values(g: GraphStatement, node: Node, hidden: Tensors, view: Statement) -> Statement:
    """The prover's statement of a node: its view with every tensor at its real values (the
    view's witness and unbounded set kept)."""
    values: Mapping[str, np.ndarray] = {**g.inputs, **g.outputs, **hidden}
    return replace(
        view,
        inputs={local: values[name] for local, name in node.inputs.items()},
        outputs={local: values[name] for local, name in node.outputs.items()},
        weights={local: g.weights[name] for local, name in node.weights.items()},
    )


def mod_p_relations(g: GraphStatement) -> list[str]:
    """Relations that hold mod p only (reading a committed weight or an unbounded tensor), as
    `node i (kind): relation`."""
    return [
        f"node {i} ({st.kind}): {rel}"
        for i, st in enumerate(layer_statements(g))
        for rel in mod_p_only(LAYERS[st.kind].relations, st.skipped())
    ]
