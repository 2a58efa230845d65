"""Random int8 example statements: what `cairn prove <layer>` proves and `cairn bench layers`
measures (at the reference sizes of issue 6: MiniLM's attention, s = 128, h = 12, m = 32)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cairn.prover.layers.kvcache import model as kvcache
from cairn.prover.layers.mha import model as mha
from cairn.prover.layers.posenc import model as posenc
from cairn.prover.layers.qkv import model as qkv
from cairn.prover.walk.statement import Statement


def _int8(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-128, 128, shape, dtype=np.int64)


def _qkv_weights(rng: np.random.Generator, embed: int, hidden: int) -> dict[str, np.ndarray]:
    return {name: _int8(rng, *shape) for name, shape in qkv.weight_shapes(embed, hidden).items()}


def posenc_example(seq: int, context: int, embed: int, seed: int) -> Statement:
    rng = np.random.default_rng(seed)
    return posenc.make_statement(_int8(rng, seq, embed), _int8(rng, context, embed))


def qkv_example(seq: int, embed: int, hidden: int, seed: int) -> Statement:
    rng = np.random.default_rng(seed)
    return qkv.make_statement(_int8(rng, seq, embed), _qkv_weights(rng, embed, hidden))


def decode_example(
    steps: int, context: int, prefill: int, embed: int, hidden: int, seed: int
) -> Statement:
    """`prefill` cached rows, then `steps` decode steps (prefill + steps <= context)."""
    rng = np.random.default_rng(seed)
    weights = _qkv_weights(rng, embed, hidden)
    caches = {j: _int8(rng, prefill, hidden) for j in kvcache.CACHES}
    return kvcache.make_statement(_int8(rng, steps, embed), caches, context, weights)


def mha_example(seq: int, heads: int, head_dim: int, causal: bool, seed: int) -> Statement:
    """Softmax is the unproven reference stand-in (the softmax boundary, docs/layers/mha.md)."""
    rng = np.random.default_rng(seed)
    q, k, v = (_int8(rng, seq, heads * head_dim) for _ in range(3))
    return mha.make_statement(q, k, v, heads, causal, mha.reference_softmax)


BENCHMARKS: dict[str, Callable[[], Statement]] = {
    "qkv s=128 e=384 h=384": lambda: qkv_example(128, 384, 384, 0),
    "mha s=128 h=12 m=32 causal": lambda: mha_example(128, 12, 32, True, 0),
    "posenc s=128 c=512 e=384": lambda: posenc_example(128, 512, 384, 0),
    "qkv-decode T=4 l=256 e=h=384": lambda: decode_example(4, 256, 124, 384, 384, 0),
}
