"""No-wrap bounds: when a relation proven mod p also holds over the integers.

A proof shows, entry by entry, y ≡ f(operands) (mod p) for a public output y and an integer
function f of the operands (a sum of products). Every public tensor is read as signed integers
with |x| ≤ (p−1)/2, so if also |f| ≤ (p−1)/2 then |y − f| ≤ p − 1 < p while p divides y − f:
y = f over the integers. Each `Relation` bounds |f| from its public operands; the verifier
refuses a statement whose bound exceeds (p−1)/2 (`statement.range`). A committed operand's
values are never seen, so a relation reading one is not checked and holds mod p only until
range lookups bound the operand (docs/claim-walk.md, "Over the integers").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF, max_magnitude

Tensors = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Relation:
    """One relation of a statement. `bound(tensors, dims)` is a Python int that must be
    ≤ (p−1)/2 for the relation to hold over the integers; it reads only `operands`, and is
    monotone in their magnitudes (so a tensor known only by a bound on its entries can be
    read as that bound everywhere). `result` names the output the relation defines, which
    the bound then bounds too: in a model walk, that is what its consumers may assume."""

    name: str
    operands: tuple[str, ...]
    bound: Callable[[Tensors, Sequence[int]], int]
    result: str | None = None
    row_sq: Callable[[Tensors, Sequence[int]], int] | None = None
    """A bound on every row's squared Euclidean norm (last axis) of `result`, for producers
    that know one (a LayerNorm output): consumers' products then use Cauchy–Schwarz."""


def pow2(n: int) -> int:
    """2^n for a bound: a dim is any u32 until its kind's check refuses it, and past 2^62
    every nonzero bound is beyond p anyway, so the shift is capped there (same verdicts,
    no 2^32-bit integer). ValueError for n < 0, as a plain shift."""
    return 1 << min(n, 62)


class RowNormed(np.ndarray):
    """A hidden tensor's worst case whose rows have a declared bound on their squared norm
    (`row_sq`), which product_bound uses instead of computing it from the (filled) values."""

    row_sq: int


def with_row_norm(a: np.ndarray, row_sq: int) -> np.ndarray:
    out = a.view(RowNormed)
    out.row_sq = row_sq
    return out


class ColumnNormed(np.ndarray):
    """A committed weight's worst case (every entry at its declared magnitude) with the declared
    bound `col_abs` on Σ_l |w_lj| per matrix of the stack (a vector: Σ|w|, one value), which
    product_bound and square_norm use instead of computing it from the filled values (and
    Σ_l w_lj² ≤ max|w|·Σ_l |w_lj|)."""

    col_abs: list[int]


def with_column_norms(w: np.ndarray, col_abs: list[int]) -> np.ndarray:
    out = w.view(ColumnNormed)
    out.col_abs = col_abs
    return out


def _square_sums(x: np.ndarray, axis: int) -> list[int]:
    """max Σx² along `axis`, per matrix of a stack, exactly (Python ints beyond int64)."""
    top = int(np.abs(x).max(initial=0))
    big = x.shape[axis] * top * top >= 1 << 63
    sq = np.square(x.astype(object if big else np.int64))
    return [int(v) for v in np.asarray(sq.sum(axis=axis).max(axis=-1)).ravel()]


def _ceil_sqrt(n: int) -> int:
    r = math.isqrt(n)
    return r if r * r == n else r + 1


def _abs_sums(x: np.ndarray, axis: int) -> np.ndarray:
    """Σ|x| along `axis`, exact: int64 while length·(p−1)/2 < 2^63, Python ints beyond."""
    dtype = np.int64 if x.shape[axis] * HALF < 1 << 63 else object
    return np.abs(x).astype(dtype).sum(axis=axis)


def _column_abs_sums(b: np.ndarray) -> list[int]:
    """max_j Σ_l |b_lj| per matrix of the stack, declared (a ColumnNormed b) or computed."""
    declared = getattr(b, "col_abs", None)
    return (
        list(declared) if declared is not None else _abs_sums(b, -2).max(axis=-1).ravel().tolist()
    )


def square_norm(v: np.ndarray) -> int:
    """Σv² of a vector: computed, or at most max|v|·Σ|v| for a ColumnNormed one (a vector's one
    column sum is Σ|v|; a matrix's col_abs would not bound its Σv²)."""
    declared = getattr(v, "col_abs", None)
    if declared is not None and v.ndim == 1:
        return max_magnitude(v) * declared[0]
    return sum(int(x) ** 2 for x in np.asarray(v).ravel().tolist())


def holder_bounds(a: np.ndarray, b: np.ndarray) -> list[int]:
    """Per matrix of the stack, min(max_i ‖a_i·‖₁·max|b|, max|a|·max_j ‖b_·j‖₁): Hölder twice,
    each ≤ k·max|a|·max|b|; the row norm is what bounds a softmax matrix times V."""
    rows = _abs_sums(a, -1).max(axis=-1).ravel().tolist()
    cols = _column_abs_sums(b)
    max_a = np.abs(a).max(axis=(-2, -1)).ravel().tolist()
    max_b = np.abs(b).max(axis=(-2, -1)).ravel().tolist()
    return [min(r * mb, ma * c) for r, c, ma, mb in zip(rows, cols, max_a, max_b, strict=True)]


def product_bound(a: np.ndarray, b: np.ndarray) -> int:
    """A bound on |entry| of a @ b for a stack of matrices (leading axes are the batch):
    |Σ_l a_il·b_lj| ≤ min(Hölder's two terms, ⌈max_i ‖a_i·‖₂·max_j ‖b_·j‖₂⌉), per matrix, then
    the largest. The Euclidean term is what bounds a LayerNorm output times W (a's declared
    row norm if it is a RowNormed worst case; b's column norms from its declared Σ|b| if it is
    a ColumnNormed one: Σ b² ≤ max|b|·Σ|b|)."""
    if not a.size or not b.size:
        return 0
    declared = getattr(a, "row_sq", None)
    holder = holder_bounds(a, b)
    rows_sq = [declared] * len(holder) if declared is not None else _square_sums(a, -1)
    if getattr(b, "col_abs", None) is not None:
        tops = np.abs(b).max(axis=(-2, -1)).ravel().tolist()
        cols_sq = [int(t) * c for t, c in zip(tops, _column_abs_sums(b), strict=True)]
    else:
        cols_sq = _square_sums(np.swapaxes(b, -1, -2), -1)
    return max(
        min(h, _ceil_sqrt(rs * cs)) for h, rs, cs in zip(holder, rows_sq, cols_sq, strict=True)
    )


def check_ranges(
    relations: Sequence[Relation], tensors: Tensors, dims: Sequence[int], committed: Collection[str]
) -> None:
    """Raise statement.range unless every relation whose operands are all public has its
    bound ≤ (p−1)/2. Relations reading a committed operand are skipped: see `mod_p_only`."""
    for rel in relations:
        if any(name in committed for name in rel.operands):
            continue
        for name in rel.operands:  # the bounds take |x| ≤ (p−1)/2 for granted (np.abs)
            if max_magnitude(tensors[name]) > HALF:
                raise VerificationError("statement.range", f"{name}: an entry beyond ±{HALF}")
        bound = rel.bound(tensors, dims)
        if bound > HALF:
            raise VerificationError(
                "statement.range",
                f"{rel.name}: entries can reach {bound} > (p−1)/2 = {HALF}, "
                "so the relation would hold only mod p",
            )


def mod_p_only(relations: Sequence[Relation], committed: Collection[str]) -> list[str]:
    """The relations that read a committed operand: they hold mod p only (no range check)."""
    return [rel.name for rel in relations if any(n in committed for n in rel.operands)]
