"""The native field kernels (cairn_native) against straightforward numpy references.

Every reference lives here only: the package calls the kernels. Sizes include 2^0 and 2^1,
values include the extremes 0 and p − 1 (the worst case for lazy reductions).
"""

import cairn_native
import numpy as np
import pytest

from cairn.prover.fields import qm31
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.pcs import code

rng = np.random.default_rng(11)
SIZES = [1, 2, 3, 8, 1000]
LOG_SIZES = [0, 1, 2, 5]


def rand(n: int) -> np.ndarray:
    """(n, 4) canonical values, with the extremes 0 and p − 1 mixed in."""
    x = rng.integers(0, P, (n, 4))
    x[rng.random((n, 4)) < 0.2] = P - 1
    x[rng.random((n, 4)) < 0.1] = 0
    return x


def rand_base(n: int) -> np.ndarray:
    return rand(n)[:, 0].copy()


def ref_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The coordinate formulas of fields/qm31.py on numpy arrays."""
    quad = qm31.mul(tuple(a[..., k] for k in range(4)), tuple(b[..., k] for k in range(4)))
    return np.stack(np.broadcast_arrays(*quad), axis=-1)


def ref_fold(f: np.ndarray, r: np.ndarray) -> np.ndarray:
    half = len(f) // 2
    return (f[:half] + ref_mul((f[half:] - f[:half]) % P, r)) % P


def ref_eq_table(point: list[np.ndarray], scale: np.ndarray) -> np.ndarray:
    table = scale[None, :]
    for r in point:
        hi = ref_mul(table, r)
        table = np.stack([(table - hi) % P, hi], axis=1).reshape(-1, 4)
    return table


@pytest.mark.parametrize("n", SIZES)
def test_qm31_arithmetic(n):
    a, b = rand(n), rand(n)
    x, y = QM31Array(a), QM31Array(b)
    assert np.array_equal((x + y).data, (a + b) % P)
    assert np.array_equal((x - y).data, (a - b) % P)
    assert np.array_equal((-x).data, -a % P)
    assert np.array_equal((x * y).data, ref_mul(a, b))
    s = QM31(*map(int, rand(1)[0]))
    want = ref_mul(a, np.array(s.coords))
    assert np.array_equal((x * s).data, want)
    assert np.array_equal((QM31Array(np.array(s.coords)) * x).data, want)
    base = rand_base(n)
    assert np.array_equal(x.mul_base(base).data, a * base[:, None] % P)
    assert np.array_equal(code.scale_base(s, base).data, np.outer(base, s.coords) % P)
    acc = a.copy()
    cairn_native.qm31_add_scaled_base(acc, s.coords, base)
    assert np.array_equal(acc, (a + np.outer(base, s.coords)) % P)


def test_qm31_broadcasting_and_shapes():
    a, b = rand(12).reshape(3, 4, 4), rand(4)
    got = QM31Array(a) * QM31Array(b)  # (3, 4) against (4,)
    assert np.array_equal(got.data, ref_mul(a, b[None]))
    strided = QM31Array(a)[:, ::2]  # non-contiguous operands are copied first
    assert np.array_equal((strided + strided).data, 2 * a[:, ::2] % P)
    base = rand_base(4)
    assert np.array_equal(QM31Array(a).mul_base(base).data, a * base[None, :, None] % P)
    empty = QM31Array(np.zeros((0, 4), dtype=np.int64))
    assert (empty * empty).shape == (0,)


def test_kernel_argument_checks():
    a = rand(4)
    with pytest.raises(ValueError, match="overlaps"):
        cairn_native.qm31_add(a, a, rand(4))
    with pytest.raises(ValueError, match="C-contiguous"):
        cairn_native.qm31_add(np.empty((2, 4), dtype=np.int64), a[::2], a[::2])
    with pytest.raises(ValueError, match="expected 4 or 1"):
        cairn_native.qm31_mul(np.empty((4, 4), dtype=np.int64), a, rand(3))
    frozen = np.empty((4, 4), dtype=np.int64)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cairn_native.qm31_add(frozen, a, a)
    with pytest.raises(BufferError):
        cairn_native.qm31_add(np.empty((4, 4)), a, a)  # float64, not int64
