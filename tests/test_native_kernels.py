"""The native field kernels (cairn_native) against straightforward numpy references.

Every reference lives here only: the package calls the kernels. Sizes include 2^0 and 2^1,
values include the extremes 0 and p − 1 (the worst case for lazy reductions).
"""

import cairn_native
import numpy as np
import pytest

from cairn.prover.fields import qm31
from cairn.prover.fields.m31 import P, batch_inverse
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.mle import eq_table, fold, fold_combination
from cairn.prover.pcs import code, domain
from cairn.prover.sumcheck.prover import Product, _round_evals

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
    assert x.dot(y) == QM31(*(int(v) for v in ref_mul(a, b).sum(axis=0) % P))
    for vector in (base, base.astype(np.uint32)):  # a message or a codeword
        acc = a.copy()
        cairn_native.qm31_add_scaled_base(acc, s.coords, vector)
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


@pytest.mark.parametrize("n", SIZES[1:])
def test_batch_inverse(n):
    x = rand_base(n)
    x[x == 0] = 1
    want = np.array([pow(int(v), P - 2, P) for v in x])
    assert np.array_equal(batch_inverse(x), want)
    x[n // 2] = 0
    with pytest.raises(ZeroDivisionError):
        batch_inverse(x)


@pytest.mark.parametrize("log_n", [1, 2, 6])
def test_mle_fold(log_n):
    f, r = rand(1 << log_n), rand(1)[0]
    assert np.array_equal(fold(QM31Array(f), QM31(*map(int, r))).data, ref_fold(f, r))
    f3 = rand(2 << log_n).reshape(2, 1 << log_n, 4)  # folds the leading axis
    got = fold(QM31Array(f3), QM31(*map(int, r)))
    assert np.array_equal(got.data, ref_fold(f3, r))


def ref_combination(terms: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Σ_k β_k·v_k for QM31 β_k and base vectors v_k."""
    return sum(np.outer(v, beta) % P for beta, v in terms) % P


@pytest.mark.parametrize("log_n", [1, 2, 6])
@pytest.mark.parametrize("k", [1, 3])
def test_fold_combinations(log_n, k):
    """The prover's first folds of Σ β_k·(f_k, C_k) from the base terms."""
    r = rand(1)[0]
    terms = [(rand(1)[0], rand_base(1 << log_n)) for _ in range(k)]
    args = [(QM31(*map(int, b)), v) for b, v in terms]
    got = fold_combination(args, QM31(*map(int, r)))
    assert np.array_equal(got.data, ref_fold(ref_combination(terms), r))
    inv_2x = rand_base(1 << (log_n - 1))
    words = [(b, v.astype(np.uint32)) for b, v in args]  # codewords are uint32
    got = code.fold_combination(words, inv_2x, QM31(*map(int, r)))
    assert np.array_equal(got.data, ref_codeword_fold(ref_combination(terms), inv_2x, r))
    a = rand(1 << log_n)
    want = (a * terms[0][1][:, None] % P).sum(axis=0) % P
    assert QM31Array(a).dot_base(terms[0][1]) == QM31(*map(int, want))


@pytest.mark.parametrize("log_n", LOG_SIZES)
def test_eq_table(log_n):
    point, scale = rand(log_n), rand(1)[0]
    got = eq_table([QM31(*map(int, r)) for r in point], QM31(*map(int, scale)))
    assert np.array_equal(got.data, ref_eq_table(list(point), scale))


def ref_codeword_fold(values: np.ndarray, inv_2x: np.ndarray, r: np.ndarray) -> np.ndarray:
    lo, hi = values[..., 0::2, :], values[..., 1::2, :]
    even = (lo + hi) % P
    even = np.where(even % 2 == 1, even + P, even) // 2
    odd = (lo - hi) % P * inv_2x[..., None] % P
    return (even + ref_mul((odd - even) % P, r)) % P


@pytest.mark.parametrize("log_n", [1, 2, 7])
def test_codeword_fold(log_n):
    r = rand(1)[0]
    values, inv_2x = rand(1 << log_n), rand_base(1 << (log_n - 1))
    got = code.fold(QM31Array(values), inv_2x, QM31(*map(int, r)))
    assert np.array_equal(got.data, ref_codeword_fold(values, inv_2x, r))
    # the verifier's query blocks: one twiddle row per block, or one row for all
    blocks = rand(3 << log_n).reshape(3, 1 << log_n, 4)
    per_block = rand_base(3 << (log_n - 1)).reshape(3, -1)
    for tw in (per_block, per_block[0]):
        got = code.fold(QM31Array(blocks), tw, QM31(*map(int, r)))
        assert np.array_equal(
            got.data, ref_codeword_fold(blocks, np.broadcast_to(tw, per_block.shape), r)
        )


def ref_twiddles(log_size: int) -> np.ndarray:
    """Doubling a bit-reversed table of circle points, with numpy."""
    h = domain.subgroup_generator(log_size + 2)
    table = (np.array([h[0]], dtype=np.int64), np.array([h[1]], dtype=np.int64))
    step = domain.circle_mul(domain.circle_mul(h, h), domain.circle_mul(h, h))
    for _ in range(log_size - 1):
        shifted = domain.circle_mul(table, step)
        table = tuple(np.stack([t, s], axis=1).reshape(-1) for t, s in zip(table, shifted))
        step = domain.circle_mul(step, step)
    return table[0]


@pytest.mark.parametrize("log_size", [1, 2, 3, 10])
def test_fold_twiddles(log_size):
    top = ref_twiddles(log_size)
    assert np.array_equal(domain.twiddles(log_size), top)
    positions = np.arange(1 << (log_size - 1))
    assert np.array_equal(top, domain.twiddles_at(log_size, positions))
    levels = [top]  # each level down: π(x) = 2x² − 1 of the even entries
    for _ in range(log_size - 1):
        levels.append((2 * levels[-1][0::2] ** 2 - 1) % P)
    for bottom in range(log_size):
        want = np.concatenate(levels[: log_size - bottom][::-1])
        assert np.array_equal(domain.fold_twiddles(log_size, bottom), want)


def ref_encode(message: np.ndarray, log_blowup: int) -> np.ndarray:
    """n butterfly levels on rows, smallest first (docs/pcs.md, "Encoding")."""
    n = len(message).bit_length() - 1
    src = np.repeat(message, 1 << log_blowup)
    levels = code.layer_twiddles(n + log_blowup, log_blowup)[::-1] if n else []
    for level, tw in zip(range(n - 1, -1, -1), levels):
        rows = src.reshape(2 << level, len(tw))
        t = rows[1::2] * tw % P
        out = np.empty((1 << level, 2 * len(tw)), dtype=np.int64)
        out[:, 0::2] = (rows[0::2] + t) % P
        out[:, 1::2] = (rows[0::2] - t) % P
        src = out.ravel()
    return src


@pytest.mark.parametrize("log_n", LOG_SIZES)
@pytest.mark.parametrize("log_blowup", [1, 2])
def test_encode(log_n, log_blowup):
    message = rand_base(1 << log_n)
    assert np.array_equal(code.encode(message, log_blowup), ref_encode(message, log_blowup))


@pytest.mark.parametrize("log_n", [1, 2, 5])
def test_sumcheck_sums(log_n):
    """Round sums of products of tables split into halves, and of half-length tables (constant
    in the round's variable)."""
    tables = [QM31Array(rand(1 << log_n)) for _ in range(3)]
    tables.append(QM31Array(rand(1 << (log_n - 1))))
    products = [Product((0, 1, 1)), Product((2,), QM31(3, 0, 1, 0)), Product((3, 0, 2))]
    degree, half = 3, 1 << (log_n - 1)
    want = []
    for t in range(degree + 1):
        at = [(f.data[:half] + t * (f.data[half:] - f.data[:half])) % P for f in tables[:3]]
        at.append(tables[3].data)
        total = QM31.zero()
        for term in products:
            acc = at[term.mles[0]]
            for j in term.mles[1:]:
                acc = ref_mul(acc, at[j])
            total = total + QM31(*(int(v) for v in acc.sum(axis=0) % P)) * term.coeff
        want.append(total)
    assert _round_evals(tables, products, degree) == want


def ref_round(w: np.ndarray, f: np.ndarray) -> tuple[QM31, QM31]:
    """c0 and c2 of g(X) = Σ_x w(X, x)·f(X, x), from g at 0, 1, 2 as the generic round does."""
    half = len(w) // 2
    at = []
    for t in range(3):
        wt = (w[:half] + t * (w[half:] - w[:half])) % P
        ft = (f[:half] + t * (f[half:] - f[:half])) % P
        at.append(ref_mul(wt, ft).sum(axis=0) % P)
    c2 = (at[2] - 2 * at[1] + at[0]) * ((P + 1) // 2) % P  # second difference / 2
    return QM31(*map(int, at[0])), QM31(*map(int, c2))


@pytest.mark.parametrize("log_n", [1, 2, 6])
@pytest.mark.parametrize("base", [True, False])
def test_pair_round_and_fold(log_n, base):
    """A pair's round coefficients, and its fold with the next round's from the same pass."""
    w, r = rand(1 << log_n), rand(1)[0]
    f = rand_base(1 << log_n) if base else rand(1 << log_n)
    lifted = np.stack([f, *[np.zeros_like(f)] * 3], axis=1) if base else f
    got = tuple(QM31(*v) for v in cairn_native.pair_round(w, f))
    assert got == ref_round(w, lifted)
    half = 1 << (log_n - 1)
    w_out, f_out = np.empty((half, 4), dtype=np.int64), np.empty((half, 4), dtype=np.int64)
    after = tuple(QM31(*v) for v in cairn_native.pair_fold(w_out, f_out, w, f, tuple(r)))
    assert np.array_equal(w_out, ref_fold(w, r))
    assert np.array_equal(f_out, ref_fold(lifted, r))
    want = ref_round(w_out, f_out) if half > 1 else (QM31.zero(), QM31.zero())
    assert after == want
    with pytest.raises(ValueError, match="against"):
        cairn_native.pair_round(w, rand_base(3))
    with pytest.raises(ValueError, match="overlaps"):
        cairn_native.pair_fold(w[:half], f_out, w, f, tuple(r))


@pytest.mark.parametrize("log_n", LOG_SIZES)
def test_eq_add(log_n):
    point, scale = rand(log_n), rand(1)[0]
    out = rand(1 << log_n)
    want = (out + ref_eq_table(list(point), scale)) % P
    cairn_native.eq_add(out, [tuple(r) for r in point], tuple(scale))
    assert np.array_equal(out, want)


def ref_gate_sums(eq: np.ndarray, tables: list[np.ndarray]) -> tuple[QM31, ...]:
    """Σ_x eq(x)·(u·q1 + p1·q0)(t, x) at t = 0, 1, 2 (p1 = 1 when absent)."""
    half, out = len(eq), []
    for t in range(3):
        u, q0, q1, *p1 = ((f[:half] + t * (f[half:] - f[:half])) % P for f in tables)
        cross = ref_mul(p1[0], q0) if p1 else q0
        gate = ref_mul(eq, (ref_mul(u, q1) + cross) % P)
        out.append(QM31(*map(int, gate.sum(axis=0) % P)))
    return tuple(out)


@pytest.mark.parametrize("log_h", [0, 1, 5])
@pytest.mark.parametrize("singles", [True, False])
def test_gate_sums_and_fold(log_h, singles):
    """A LogUp-GKR layer round's sums, and the fold of its tables with the next round's."""
    h, s = 1 << log_h, rand(1)[0]
    eq, tables = rand(h), [rand(2 * h) for _ in range(3 if singles else 4)]
    got = tuple(QM31(*v) for v in cairn_native.gate_sums(eq, tables))
    assert got == ref_gate_sums(eq, tables)
    outs = [np.empty((h, 4), dtype=np.int64) for _ in tables]
    eq_out = np.empty((h // 2, 4), dtype=np.int64)
    after = tuple(QM31(*v) for v in cairn_native.gate_fold(outs, eq_out, eq, tables, tuple(s)))
    for out, t in zip(outs, tables):
        assert np.array_equal(out, ref_fold(t, s))
    assert np.array_equal(eq_out, (eq[: h // 2] + eq[h // 2 :]) % P)
    assert after == (ref_gate_sums(eq_out, outs) if h > 1 else (QM31.zero(),) * 3)
    with pytest.raises(ValueError, match="2h values"):
        cairn_native.gate_sums(eq, tables[:2])
