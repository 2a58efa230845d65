"""Walk proofs of every kind the Cairo verifier reads, at odd (non-power-of-two) shapes: the
examples the calldata, Cairo and devnet tests share."""

from __future__ import annotations

from functools import cache

from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.serializer.walk_calldata import ONCHAIN_KINDS
from tests import (
    test_layer_kvcache,
    test_layer_linear,
    test_layer_mha,
    test_layer_posenc,
    test_layer_qkv,
)

SHAPES: dict[str, list[tuple]] = {
    "linear": [(3, 5, 2), (5, 3, 7)],
    "qkv": [(3, 5, 2), (7, 9, 6)],
    "qkv-decode": [(2, 3, 2, 3, 1), (3, 5, 3, 2, 2)],
    "mha": [(3, 2, 3, True), (5, 3, 6, False)],
    "posenc": [(3, 10, 5), (5, 64, 7)],
}
assert set(SHAPES) == set(ONCHAIN_KINDS)

STATEMENTS = {
    "linear": test_layer_linear.statement,
    "qkv": test_layer_qkv.statement,
    "qkv-decode": test_layer_kvcache.statement,
    "mha": lambda s, h, m, causal: test_layer_mha.make_statement(
        *test_layer_mha._inputs(s, h, m, 0), h, causal, test_layer_mha.reference_softmax
    ),
    "posenc": lambda s, c, e: test_layer_posenc._prove(s, c, e).statement,
}


@cache
def example(kind: str, index: int = 0, committed: bool = False) -> WalkProof:
    """The proof of the kind's `index`-th shape, its weights public or committed (Poseidon);
    cached: the tests share them."""
    st = STATEMENTS[kind](*SHAPES[kind][index])
    if not committed or not st.weights:
        return prove_walk(LAYERS[kind], st)
    st, data = commit_weights(st, POSEIDON_PARAMS)
    return prove_walk(LAYERS[kind], st, data)
