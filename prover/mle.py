"""Multilinear extensions over the boolean hypercube.

Convention (docs/claim-walk.md, "Tensors and MLEs"): a table is indexed row-major and its
variables are read most-significant-bit first, so the first variable selects the bottom or top half.
"""

from __future__ import annotations

from collections.abc import Sequence

import cairn_native
import numpy as np

from cairn.prover.fields.m31 import P, embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.linalg import matmul_mod_p

ONE = QM31.one()


def inverse_pow2(k: int) -> QM31:
    """2^−k in the field: a sum over k boolean variables divided by their 2^k points."""
    return QM31.from_int(pow((P + 1) // 2, k, P))


def log2_exact(n: int) -> int:
    if n < 1 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


def next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def binary(v: int, n: int) -> list[int]:
    """The n-bit expansion of v, MSB first (v < 2^n): the variable order of every MLE."""
    return [(v >> (n - 1 - t)) & 1 for t in range(n)]


def hypercube_point(v: int, n: int) -> tuple[QM31, ...]:
    """Index v as a point of {0,1}^n; eq(·, hypercube_point(v)) is one-hot at v."""
    return tuple(QM31.from_int(b) for b in binary(v, n))


def prefix_mask(point: Sequence[QM31], s: int) -> QM31:
    """Σ_{i<s} eq(point, i) in O(n): the MLE of the mask of the first s of 2^n indices.

    i < s exactly when, at the first bit where i and s differ (MSB first), s has a 1 and i a 0;
    the bits after it are free and their eq factors sum to 1."""
    n = len(point)
    if s >= 1 << n:
        return QM31.one()
    one = QM31.one()
    total = QM31.zero()
    prefix = one  # Π eq(point_k, s_k) over the bits before position i
    for i, r in enumerate(point):
        if (s >> (n - 1 - i)) & 1:
            total = total + prefix * (one - r)
            prefix = prefix * r
        else:
            prefix = prefix * (one - r)
    return total


def eq_table(point: Sequence[QM31], scale: QM31 = ONE) -> QM31Array:
    """scale·eq(point, x) for every x in {0,1}^n, x read MSB-first: 2^n entries (natively,
    each variable splitting every entry v into v·(1 − r), v·r)."""
    out = np.empty((1 << len(point), 4), dtype=np.int64)
    cairn_native.eq_table(out, [r.coords for r in point], scale.coords)
    return QM31Array(out)


def eq_eval(a: Sequence[QM31], b: Sequence[QM31]) -> QM31:
    """eq(a, b) = prod_i (a_i b_i + (1 - a_i)(1 - b_i)): the MLE of equality, O(n)."""
    if len(a) != len(b):
        raise ValueError(f"eq of points of {len(a)} and {len(b)} variables")
    one = QM31.one()
    acc = one
    for x, y in zip(a, b, strict=True):
        xy = x * y
        acc = acc * (xy + xy + one - x - y)
    return acc


def boolean_prefix(point: Sequence[QM31]) -> int:
    """How many leading coordinates are exactly 0 or 1 (a stacked column's claim has its
    offset bits there, pcs/stack.py)."""
    zero, one = QM31.zero(), QM31.one()
    return next((i for i, r in enumerate(point) if r not in (zero, one)), len(point))


def eq_combination(points: Sequence[Sequence[QM31]], coeffs: Sequence[QM31]) -> QM31Array:
    """Σ_k c_k·eq(point_k, x) over the hypercube: how claims at several points are merged.

    eq(point, x) vanishes unless x starts with the point's boolean prefix, where it is
    eq(suffix, x_tail): so only that block of the table is summed into (natively, in place)."""
    n = len(points[0])
    table = np.zeros((1 << n, 4), dtype=np.int64)
    for point, c in zip(points, coeffs, strict=True):
        b = boolean_prefix(point)
        start = sum(int(r == QM31.one()) << (n - 1 - i) for i, r in enumerate(point[:b]))
        block = table[start : start + (1 << (n - b))]
        cairn_native.eq_add(block, [r.coords for r in point[b:]], c.coords)
    return QM31Array(table)


def eq_combination_at(
    points: Sequence[Sequence[QM31]], coeffs: Sequence[QM31], r: Sequence[QM31]
) -> QM31:
    """eq_combination(points, coeffs) at r, in O(k·n)."""
    total = QM31.zero()
    for point, c in zip(points, coeffs, strict=True):
        total = total + c * eq_eval(point, r)
    return total


def fold(f: QM31Array, r: QM31) -> QM31Array:
    """Fix the first variable to r: f(r, x') = f(0, x') + r (f(1, x') - f(0, x'))."""
    out = np.empty((len(f) // 2, *f.data.shape[1:]), dtype=np.int64)
    cairn_native.mle_fold(out, np.ascontiguousarray(f.data), r.coords)
    return QM31Array(out)


def fold_combination(terms: Sequence[tuple[QM31, np.ndarray]], r: QM31) -> QM31Array:
    """fold(Σ_k β_k·f_k, r) for terms (β_k, f_k) of canonical M31 tables of one length, without
    building the (QM31) sum."""
    betas, tables = zip(*terms, strict=True)
    out = np.empty((len(tables[0]) // 2, 4), dtype=np.int64)
    cairn_native.mle_fold_combination(out, list(tables), [b.coords for b in betas], r.coords)
    return QM31Array(out)


def evaluate(values: np.ndarray, point: Sequence[QM31]) -> QM31:
    """MLE of canonical M31 values (length 2^n) at a QM31 point."""
    eq = eq_table(point)
    return eq.mul_base(np.asarray(values, dtype=np.int64)).sum()


def pad_tensor(t: np.ndarray) -> np.ndarray:
    """Zero-pad every dimension to a power of two; the MLE reads the result row-major."""
    out = np.zeros(tuple(next_pow2(d) for d in t.shape), dtype=np.int64)
    out[tuple(slice(0, d) for d in t.shape)] = t
    return out


def tensor_vars(shape: Sequence[int]) -> int:
    """Number of MLE variables of a tensor of this (unpadded) shape."""
    return sum(log2_exact(next_pow2(d)) for d in shape)


def evaluate_tensor(t: np.ndarray, point: Sequence[QM31]) -> QM31:
    """MLE of a signed-integer tensor, zero-padded per dimension, at `point`."""
    return evaluate(embed(pad_tensor(t)).ravel(), point)


def row_combination(eq_rows: QM31Array, matrix: np.ndarray) -> QM31Array:
    """sum_i eq_rows[i] * matrix[i, :] for a canonical M31 matrix (exact, on BLAS)."""
    return QM31Array(matmul_mod_p(eq_rows.data.T, matrix).T.copy())


def col_combination(matrix: np.ndarray, eq_cols: QM31Array) -> QM31Array:
    """sum_j matrix[:, j] * eq_cols[j] for a canonical M31 matrix (exact, on BLAS)."""
    return QM31Array(matmul_mod_p(matrix, eq_cols.data))


def evaluate_matrix(matrix: np.ndarray, r_row: Sequence[QM31], r_col: Sequence[QM31]) -> QM31:
    """MLE of a padded canonical M31 matrix at (r_row, r_col)."""
    partial = col_combination(matrix, eq_table(r_col))
    return (partial * eq_table(r_row)).sum()
