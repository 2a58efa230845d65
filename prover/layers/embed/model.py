"""The layer's computation and its public statement.

The token ids are public and part of the statement's dims, after (s, V, B, P, d): the
verifier reads them, and a dim is bound before any challenge like every other. The word table
(V × d) is stated in row blocks `word_0`, `word_1`, … of B rows (the last one shorter), so a
table too large for one PCS commitment is committed per block (docs/layers/embed.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.mle import next_pow2
from cairn.prover.ranges import Relation, Tensors
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "embed"
DIM_NAMES = ("s", "V", "B", "P", "d")
"""Then the s token ids."""


def block_name(j: int) -> str:
    return f"word_{j}"


def word_blocks(vocab: int, block_rows: int) -> list[tuple[int, int]]:
    """Rows [start, end) of each word block, in order."""
    return [(a, min(a + block_rows, vocab)) for a in range(0, vocab, block_rows)]


def pcs_block_rows(vocab: int, d: int, max_vars: int) -> int:
    """The most rows one PCS polynomial of 2^max_vars values holds (at most V): the blocks the
    model file commits (models/minilm/model_file.py, `row_blocks`)."""
    return min(vocab, max(1, (1 << max_vars) // next_pow2(d)))


def token_ids(dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(dims[len(DIM_NAMES) :])


def weight_shapes(dims: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """word_j: (rows of block j) × d, position: P × d."""
    _, vocab, block_rows, positions, d = dims[: len(DIM_NAMES)]
    shapes = {block_name(j): (b - a, d) for j, (a, b) in enumerate(word_blocks(vocab, block_rows))}
    return shapes | {"position": (positions, d)}


def _word_rows(t: Tensors, dims: Sequence[int]) -> np.ndarray:
    """word[ids] from the blocks: s × d."""
    block_rows = dims[2]
    return np.stack([t[block_name(v // block_rows)][v % block_rows] for v in token_ids(dims)])


def _sum_bound(t: Tensors, dims: Sequence[int]) -> int:
    """max over i < s and c of |word[ids_i, c]| + |position[i, c]|: monotone in both tables'
    magnitudes, and at most max|word| + max|position|."""
    s = dims[0]
    total = np.abs(_word_rows(t, dims)) + np.abs(t["position"][:s])
    return int(total.max())


RELATIONS = (Relation("y = word[ids] + position", ("word_0", "position"), _sum_bound, result="y"),)
"""`word_0` stands for every word block: the check refuses a statement whose blocks are not all
public, all declared (prover/graph/declared.py) or all committed, so the relation is
skipped (mod p only) exactly when a table it reads is committed undeclared."""


def forward(ids: Sequence[int], word: np.ndarray, position: np.ndarray) -> np.ndarray:
    """word[ids] + position[:s] over the integers (s × d)."""
    return word[np.asarray(ids, dtype=np.int64)] + position[: len(ids)]


def make_statement(
    ids: Sequence[int], word: np.ndarray, position: np.ndarray, block_rows: int | None = None
) -> Statement:
    """ids: s token ids in [0, V); word: V × d, stated in blocks of `block_rows` rows (default:
    one block); position: P × d with s <= P."""
    ids = [int(v) for v in ids]
    word = np.asarray(word, dtype=np.int64)
    position = np.asarray(position, dtype=np.int64)
    if word.ndim != 2 or position.ndim != 2 or word.shape[1] != position.shape[1]:
        raise ValueError(
            f"embed needs word: V×d and position: P×d; got {word.shape}, {position.shape}"
        )
    vocab, d = word.shape
    if not 1 <= len(ids) <= position.shape[0]:
        raise ValueError(f"{len(ids)} tokens: expected 1..{position.shape[0]} (the positions)")
    if min(ids) < 0 or max(ids) >= vocab:
        raise ValueError(f"token ids must lie in [0, {vocab})")
    block_rows = vocab if block_rows is None else block_rows
    if not 1 <= block_rows <= vocab:
        raise ValueError(f"block rows {block_rows}: expected 1..{vocab}")
    embed(word)  # raises if an entry leaves the signed M31 range
    embed(position)
    y = forward(ids, word, position)
    embed(y)
    dims = (len(ids), vocab, block_rows, position.shape[0], d, *ids)
    weights = {block_name(j): word[a:b] for j, (a, b) in enumerate(word_blocks(vocab, block_rows))}
    return Statement(KIND, dims, {}, {"y": y}, weights | {"position": position})


def check(st: Statement) -> None:
    n = len(DIM_NAMES)
    if len(st.dims) < n or min(st.dims[:n]) < 1 or len(st.dims) != n + st.dims[0]:
        raise VerificationError("statement.shape", "embed dims must be (s, V, B, P, d, s ids)")
    s, vocab, block_rows, positions, d = st.dims[:n]
    if s > positions or block_rows > vocab:
        raise VerificationError("statement.shape", f"embed needs s <= P and B <= V: {st.dims[:n]}")
    ids = token_ids(st.dims)
    if min(ids) < 0 or max(ids) >= vocab:
        raise VerificationError("embed.ids", f"token ids must lie in [0, {vocab})")
    expect_shapes(st, "inputs", {})
    expect_shapes(st, "outputs", {"y": (s, d)})
    if -(-vocab // block_rows) >= len(st.weights.keys() | st.committed.keys()):
        # More blocks than the statement has tensors to be them: refused before they are listed
        # (V/B can be 2^32), as the shapes below would refuse them.
        raise VerificationError("statement.shape", f"{st.dims[:n]} name more word blocks")
    shapes = weight_shapes(st.dims)
    expect_shapes(st, "weights", shapes)
    blocks = [name for name in shapes if name != "position"]
    if len({(name in st.committed, name in st.skipped()) for name in blocks}) != 1:
        raise VerificationError(
            "statement.shape", "word blocks must be all public, all declared or all committed"
        )
    expect_ranges(st, RELATIONS)
