"""What every layer kind promises the model walk (docs/model-walk.md, "Adding a layer kind to
graphs"): a relation with a `result` bounds that output (and its declared row norms bound the
rows), and no bound drops when an operand that may be hidden is read as its worst case."""

import numpy as np
import pytest

from cairn import examples
from cairn.prover.layers.registry import LAYERS
from cairn.prover.ranges import Relation, Tensors
from cairn.prover.walk.statement import Statement

SMALL = {
    "matmul": lambda: examples.matmul_example(3, 5, 2, 0),
    "posenc": lambda: examples.posenc_example(3, 5, 2, 0),
    "qkv": lambda: examples.qkv_example(3, 5, 3, 0),
    "linear": lambda: examples.linear_example(3, 5, 6, 0),
    "add": lambda: examples.add_example(3, 5, 0),
    "qkv-decode": lambda: examples.decode_example(3, 9, 5, 3, prefill=2, seed=0),
    "mha": lambda: examples.mha_example(5, 3, 3, True, 0),
    "attn": lambda: examples.attn_example(3, 3, 5, True, None, 0),
    "requant": lambda: examples.requant_example(3, 5, 3, 9, 8, 0),
    "gelu": lambda: examples.gelu_example(3, 5, 0),
    "embed": lambda: examples.embed_example(3, 11, 2, 5, 0),
    "pool": lambda: examples.pool_example(3, 5, 0),
    "layernorm": lambda: examples.layernorm_example(4, 16, 0),
    "range": lambda: examples.range_example(3, 5, 7, 0),
}


def test_every_registered_kind_is_covered():
    assert set(SMALL) == set(LAYERS)


def _tensors(st: Statement) -> Tensors:
    return {**st.inputs, **st.outputs, **st.weights}


def _results(kind: str) -> list[Relation]:
    spec = LAYERS[kind]
    return [r for r in spec.relations if r.result and r.result not in spec.reads]


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_a_result_relation_bounds_its_output(kind):
    st = SMALL[kind]()
    t = _tensors(st)
    for rel in _results(kind):
        out = np.asarray(st.outputs[rel.result], dtype=object)
        assert rel.bound(t, st.dims) >= np.abs(out).max(initial=0), rel.name
        if rel.row_sq:
            rows = (out**2).sum(axis=-1)
            assert rel.row_sq(t, st.dims) >= rows.max(initial=0), rel.name


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_no_bound_drops_when_a_hideable_operand_is_at_its_worst(kind):
    """Inputs and outputs may be hidden in a graph (weights never are) unless the kind reads
    them (`LayerSpec.reads`); the verifier then fills them with their bound."""
    st = SMALL[kind]()
    spec = LAYERS[kind]
    t = _tensors(st)
    hideable = (set(st.inputs) | set(st.outputs)) - set(spec.reads)
    for rel in spec.relations:
        base = rel.bound(t, st.dims)
        for name in set(rel.operands) & hideable:
            worst = np.full_like(t[name], int(np.abs(t[name]).max(initial=0)))
            assert rel.bound({**t, name: worst}, st.dims) >= base, (rel.name, name)
