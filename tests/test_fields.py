"""Fields against a big-integer reference: QM31 as polynomials over Z with explicit reduction."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.prover.fields import CM31, M31, QM31, P, QM31Array
from cairn.prover.fields.m31 import batch_inverse, embed, lift
from tests.vectors import SHARED

felt = st.integers(0, P - 1)
qm31 = st.builds(QM31, felt, felt, felt, felt)


def ref_mul(x, y):
    """Multiply (a+bi)+(c+di)u by schoolbook over Z[i][u], then reduce u^2 = 2+i, i^2 = -1."""

    def cmul(p, q):
        return (p[0] * q[0] - p[1] * q[1], p[0] * q[1] + p[1] * q[0])

    a, b = (x[0], x[1]), (x[2], x[3])
    c, d = (y[0], y[1]), (y[2], y[3])
    ac, bd = cmul(a, c), cmul(b, d)
    bd_u2 = cmul(bd, (2, 1))
    ad, bc = cmul(a, d), cmul(b, c)
    return tuple(v % P for v in (ac[0] + bd_u2[0], ac[1] + bd_u2[1], ad[0] + bc[0], ad[1] + bc[1]))


def test_upstream_qm31_vector():
    v = SHARED["qm31_mul"]
    assert (QM31(*v["a"]) * QM31(*v["b"])).coords == tuple(v["a_times_b"])


@given(qm31, qm31)
def test_qm31_mul_matches_reference(x, y):
    assert (x * y).coords == ref_mul(x.coords, y.coords)


@given(qm31, qm31)
def test_qm31_add_sub_neg(x, y):
    assert ((x + y) - y) == x
    assert (x + (-x)) == QM31.zero()
    assert (x + y).coords == tuple((a + b) % P for a, b in zip(x.coords, y.coords))


@given(qm31)
def test_qm31_inverse_and_pow(x):
    if x == QM31.zero():
        with pytest.raises(ZeroDivisionError):
            x.inverse()
        return
    assert x * x.inverse() == QM31.one()
    assert x**3 == x * x * x
    assert x**-1 == x.inverse()
    assert x.square() == x * x


def test_qm31_field_order():
    x = QM31(5, 6, 7, 8)
    assert x ** (P**4 - 1) == QM31.one()


@given(st.builds(CM31, felt, felt), st.builds(CM31, felt, felt))
def test_cm31(x, y):
    ref = ((x.a * y.a - x.b * y.b) % P, (x.a * y.b + x.b * y.a) % P)
    assert ((x * y).a, (x * y).b) == ref
    if (x.a, x.b) != (0, 0):
        assert x * x.inverse() == CM31(1, 0)
    assert (x - y) + y == x and -(-x) == x and x.square() == x * x


@given(felt, felt)
def test_m31(a, b):
    x, y = M31(a), M31(b)
    assert (x * y).value == a * b % P and (x + y).value == (a + b) % P
    assert (x - y).value == (a - b) % P and (-x).value == -a % P
    if a:
        assert (x * x.inverse()).value == 1 and (x**-2) == (x * x).inverse()


def test_scalar_validation():
    with pytest.raises(ValueError):
        QM31(P, 0, 0, 0)
    with pytest.raises(ValueError):
        M31(-1)


def test_arrays_agree_with_scalars():
    rng = np.random.default_rng(0)
    xs, ys = QM31Array.random(rng, 64), QM31Array.random(rng, 64)
    for op in ("__add__", "__sub__", "__mul__"):
        got = getattr(xs, op)(ys).to_list()
        want = [getattr(x, op)(y) for x, y in zip(xs.to_list(), ys.to_list())]
        assert got == want
    assert (xs * xs.inverse()).to_list() == [QM31.one()] * 64
    assert (xs**5).to_list() == [x**5 for x in xs.to_list()]
    assert xs.square() == xs * xs
    assert xs.sum() == sum(xs.to_list(), QM31.zero())
    assert (-xs).to_list() == [-x for x in xs.to_list()]
    base = rng.integers(0, P, 64)
    assert xs.mul_base(base).to_list() == [x * int(b) for x, b in zip(xs.to_list(), base)]
    assert (xs * ys.item(3)).to_list() == [x * ys.item(3) for x in xs.to_list()]


def test_array_inverse_rejects_zero():
    with pytest.raises(ZeroDivisionError):
        QM31Array(np.zeros((3, 4), dtype=np.int64)).inverse()


def test_batch_inverse_m31():
    rng = np.random.default_rng(1)
    v = rng.integers(1, P, 1000)
    assert np.all(v * batch_inverse(v) % P == 1)
    with pytest.raises(ZeroDivisionError):
        batch_inverse(np.array([1, 0]))


@given(st.lists(st.integers(-(P - 1) // 2, (P - 1) // 2), min_size=1, max_size=20))
def test_embed_lift_round_trip(xs):
    assert lift(embed(np.array(xs))).tolist() == xs


def test_embed_rejects_out_of_range():
    # -2^63 is its own absolute value in int64: the check must not rely on np.abs
    for bad in ((P - 1) // 2 + 1, -(P - 1) // 2 - 1, -(2**63)):
        with pytest.raises(ValueError, match="signed M31 range"):
            embed(np.array([bad], dtype=np.int64))


def test_random_sampling_in_range():
    arr = QM31Array.random(np.random.default_rng(2), (10, 3))
    assert arr.shape == (10, 3) and arr.data.min() >= 0 and arr.data.max() < P
