"""Random int8 example statements: what `cairn prove <layer>` proves and `cairn bench layers`
measures (at the reference sizes of issue 6)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cairn.prover.layers.posenc import model as posenc
from cairn.prover.walk.statement import Statement


def _int8(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-128, 128, shape, dtype=np.int64)


def posenc_example(seq: int, context: int, embed: int, seed: int) -> Statement:
    rng = np.random.default_rng(seed)
    return posenc.make_statement(_int8(rng, seq, embed), _int8(rng, context, embed))


BENCHMARKS: dict[str, Callable[[], Statement]] = {
    "posenc s=128 c=512 e=384": lambda: posenc_example(128, 512, 384, 0),
}
