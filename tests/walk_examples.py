"""Walk proofs of every kind the Cairo verifier reads, at odd (non-power-of-two) shapes: the
examples the calldata, Cairo and devnet tests share."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import cache

import numpy as np

from cairn import examples
from cairn.prover.fields.m31 import HALF
from cairn.prover.layers.add import model as add
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.pool import model as pool
from cairn.prover.layers.registry import LAYERS
from cairn.prover.layers.requant import model as requant
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.walk import prover as walk_prover
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.prover import commit_tensors, committable_io, prove_walk
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.serializer.walk_calldata import ONCHAIN_KINDS
from tests import (
    test_layer_embed,
    test_layer_gelu,
    test_layer_kvcache,
    test_layer_layernorm,
    test_layer_linear,
    test_layer_matmul,
    test_layer_mha,
    test_layer_posenc,
    test_layer_qkv,
    test_layer_range,
)

SHAPES: dict[str, list[tuple]] = {
    "linear": [(3, 5, 2), (5, 3, 7)],
    "qkv": [(3, 5, 2), (7, 9, 6)],
    "qkv-decode": [(2, 3, 2, 3, 1), (3, 5, 3, 2, 2)],
    "mha": [(3, 2, 3, True), (5, 3, 6, False)],
    "posenc": [(3, 10, 5), (5, 64, 7)],
    "matmul": [(3, 5, 2), (5, 3, 7)],
    "attn": [(3, 2, 2, True), (5, 1, 3, False)],
    "requant": [(3, 5, 181, 22, 8, 22), (7, 2, 3, 5, 4, 8)],
    "add": [(3, 5, 0), (6, 1, 1)],
    "pool": [(5, 3, 0), (1, 7, 1)],
    "embed": [(5, 23, 2, 6, 3), (7, 100, 33, 7, 5)],
    "gelu": [(3, 5, 8, 15, 5, 12), (7, 2, 10, 15, 7, 12)],
    "layernorm": [(3, 5, 2), (4, 6, 0)],
    "range": [(3, 5, 7, 0), (2, 9, 20, 1)],
}
assert set(SHAPES) == set(ONCHAIN_KINDS)


def _ids(s: int, vocab: int) -> list[int]:
    """Random token ids, the first the vocabulary's last: bumped, it is out of range."""
    return [vocab - 1, *np.random.default_rng(s).integers(0, vocab, s - 1).tolist()]


STATEMENTS = {
    "linear": test_layer_linear.statement,
    "qkv": test_layer_qkv.statement,
    "qkv-decode": test_layer_kvcache.statement,
    "mha": lambda s, h, m, causal: test_layer_mha.make_statement(
        *test_layer_mha._inputs(s, h, m, 0), h, causal, test_layer_mha.reference_softmax
    ),
    "posenc": lambda s, c, e: test_layer_posenc._prove(s, c, e).statement,
    "matmul": test_layer_matmul.statement,
    "attn": lambda s, h, m, causal: examples.attn_example(s, h, m, causal, None, seed=s + h + m),
    "add": examples.add_example,
    "pool": examples.pool_example,
    "embed": lambda s, vocab, block, positions, d: test_layer_embed._statement(
        s, vocab, block, positions, d, ids=_ids(s, vocab)
    ),
    "gelu": test_layer_gelu.statement,
    "layernorm": lambda s, d, eps: test_layer_layernorm.statement(s, d, eps, seed=s + d + eps),
    "range": test_layer_range.statement,
    "requant": lambda rows, cols, multiplier, shift, bits, a: requant.make_statement(
        np.random.default_rng(rows).integers(-(1 << a) + 1, 1 << a, (rows, cols)),
        multiplier,
        shift,
        bits,
    ),
}


MODEL_ID = 0x7A1
"""Not a model id the other devnet tests register (they share one devnet)."""
CONFIG_HASH = 0xC0FFEE


@cache
def example(
    kind: str, index: int = 0, committed: bool = False, bound: bool = False, io: bool = False
) -> WalkProof:
    """The proof of the kind's `index`-th shape, its weights public or committed (Poseidon),
    and then possibly bound to model MODEL_ID (weights indexed in name order), with `io` its
    committable inputs and outputs committed too; cached: the tests share them."""
    spec = LAYERS[kind]
    st = STATEMENTS[kind](*SHAPES[kind][index])
    names = [*(st.weights if committed else ()), *(committable_io(spec) if io else ())]
    if not names:
        return prove_walk(spec, st)
    st, data = commit_tensors(st, names, POSEIDON_PARAMS)
    if bound:
        indices = {name: i for i, name in enumerate(sorted(st.weights))}
        st = replace(st, binding=ModelBinding(MODEL_ID, CONFIG_HASH, indices))
    return prove_walk(spec, st, data)


def _mha_inputs(s: int, h: int, m: int, head: int, **rows: list[list[int]]) -> list[np.ndarray]:
    """q, k, v (s × h·m) of small entries, head `head`'s columns of those named replaced."""
    out = []
    for seed, name in enumerate(("q", "k", "v")):
        x = np.random.default_rng(seed).integers(-8, 8, (s, h * m))
        if name in rows:
            x[:, head * m : (head + 1) * m] = rows[name]
        out.append(x)
    return out


def _mha_edge(s, h, m, causal, head, softmax=test_layer_mha.reference_softmax, **rows) -> Statement:
    return test_layer_mha.make_statement(*_mha_inputs(s, h, m, head, **rows), h, causal, softmax)


def _qk_euclid(x: int, y: int) -> dict[str, list[list[int]]]:
    """Head rows whose QKᵀ bound is 4xy by the Euclidean term and 8xy by the other two."""
    return {
        "q": [[x] * 4, [2 * x, 0, 0, 0], [0, 0, 0, -x]],
        "k": [[y] * 4, [-2 * y, 0, 0, 0], [0, y, 0, 0]],
    }


_A_EUCLID = np.array([[[1] * 4, [2, 0, 0, 0], [1] * 4, [0, 0, 0, -2]]]) << 13
"""A head whose rows, against _V_EUCLID's columns, bound A·V by 2^29 only by the Euclidean
term (the other two give 2^30)."""
_V_EUCLID = [[1, 2], [1, 0], [1, 0], [-1, 0]]

RANGE_EDGES: dict[str, list[tuple[str, Statement, dict[str, np.ndarray]]]] = {
    "mha": [
        (
            "Q·Kᵀ within (p−1)/2 by ‖q‖₁·max|k| per head only",
            _mha_edge(5, 3, 3, True, 1, q=[[1 << 21, -(1 << 21), 1 << 21]] * 5, k=[[100] * 3] * 5),
            {"q": _mha_inputs(5, 3, 3, 1, q=[[1 << 22] * 3] * 5)[0]},
        ),
        (
            "Q·Kᵀ within (p−1)/2 by its Euclidean term only",
            _mha_edge(3, 2, 4, False, 1, **_qk_euclid(1 << 13, 1 << 14)),
            {"q": _mha_inputs(3, 2, 4, 1, **_qk_euclid(1 << 14, 1 << 14))[0]},
        ),
        (
            "A·V within (p−1)/2 by ‖a‖₁·max|v| per head only",
            _mha_edge(3, 2, 3, True, 0, v=[[1 << 13, -(1 << 13), 1 << 13]] * 3),
            {"v": _mha_inputs(3, 2, 3, 0, v=[[1 << 15] * 3] * 3)[2]},
        ),
        (
            "A·V within (p−1)/2 by its Euclidean term only",
            _mha_edge(
                4,
                1,
                2,
                True,
                0,
                lambda _: _A_EUCLID,
                v=[[r * (1 << 14) for r in row] for row in _V_EUCLID],
            ),
            {
                "v": _mha_inputs(4, 1, 2, 0, v=[[r * (1 << 15) for r in row] for row in _V_EUCLID])[
                    2
                ]
            },
        ),
    ],
    "add": [
        (
            "max|a| + max|b| = (p−1)/2, the largest entries in different places",
            add.make_statement([[1 << 29, 0, 7]], [[0, (1 << 29) - 1, -7]]),
            {"a": np.array([[(1 << 29) + 1, 0, 7]])},
        ),
    ],
    "pool": [
        (
            "a column's Σ|x| = (p−1)/2",
            pool.make_statement([[1 << 28, 3], [1 << 28, -3], [(1 << 29) - 1, 0]]),
            {"x": np.array([[1 << 28, 3], [1 << 28, -3], [1 << 29, 0]])},
        ),
    ],
    "embed": [
        (
            "|word[id_i, c]| + |position[i, c]| = (p−1)/2 for a read row; an unread row larger",
            embed.make_statement(
                [2, 0],
                [[0, 1 << 29], [HALF, HALF], [1 << 29, 0]],
                [[(1 << 29) - 1, 9], [1 << 29, 0]],
                block_rows=2,
            ),
            {"word_1": np.array([[(1 << 29) + 1, 0]])},
        ),
    ],
}
"""Per kind: statements at the edge of `statement.range` that only the exact bound accepts,
each with replacement tensors (inputs or weights) that push it beyond (refused): the Cairo
verifier's fast bound fails on all of them."""


@cache
def range_edge(kind: str, index: int) -> tuple[WalkProof, WalkProof]:
    """The honest proof of the kind's `index`-th edge statement, and that proof with the
    statement's tensors replaced (refused by `statement.range` before anything is read)."""
    _, st, beyond = RANGE_EDGES[kind][index]
    proof = prove_walk(LAYERS[kind], st)
    groups = ("inputs", "weights")
    refused = replace(
        st, **{g: {n: beyond.get(n, t) for n, t in getattr(st, g).items()} for g in groups}
    )
    return proof, replace(proof, statement=refused)


def skip(*_: object) -> None:
    return None


@contextmanager
def forging(**replacements: Callable) -> Iterator[None]:
    """The walk prover with these functions of its own replaced (a check skipped, say): it then
    makes the proof a forger would, which the verifier must refuse."""
    saved = {name: getattr(walk_prover, name) for name in replacements}
    for name, f in replacements.items():
        setattr(walk_prover, name, f)
    try:
        yield
    finally:
        for name, f in saved.items():
            setattr(walk_prover, name, f)
