"""MLE conventions and the generic sum-check, honest and tampered."""

import itertools

import numpy as np
import pytest

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31, P, QM31Array
from cairn.prover.linalg import exact_matmul, matmul_mod_p
from cairn.prover.mle import (
    eq_combination,
    eq_table,
    evaluate,
    evaluate_matrix,
    fold,
    hypercube_point,
    log2_exact,
    next_pow2,
)
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.prover.sumcheck.prover import Pair, Product, prove_pair_sumcheck, prove_sumcheck
from cairn.prover.sumcheck.verifier import verify_sumcheck

rng = np.random.default_rng(3)


def rand_point(n):
    return QM31Array.random(rng, n).to_list()


def test_eq_table_definition_msb_first():
    r = rand_point(3)
    table = eq_table(r).to_list()
    for idx, bits in enumerate(itertools.product([0, 1], repeat=3)):  # bits[0] is the MSB
        want = QM31.one()
        for ri, b in zip(r, bits):
            want = want * (ri if b else QM31.one() - ri)
        assert table[idx] == want
    assert eq_table(r).sum() == QM31.one()


def test_fold_fixes_the_first_variable():
    values = rng.integers(0, P, 16)
    r = rand_point(4)
    f = QM31Array.from_base(values)
    for ri in r:
        f = fold(f, ri)
    assert f.item(0) == evaluate(values, r)
    # the first variable selects the top or bottom half
    bits = [QM31.one(), QM31.zero(), QM31.zero(), QM31.one()]
    assert evaluate(values, bits) == QM31.from_int(int(values[0b1001]))


def test_matrix_mle_is_row_major():
    mat = rng.integers(0, P, (4, 8))
    r = rand_point(5)
    assert evaluate_matrix(mat, r[:2], r[2:]) == evaluate(mat.ravel(), r)


def test_linalg_exact():
    x = rng.integers(0, P, (5, 7))
    y = rng.integers(0, P, (7, 3))
    want = [
        [sum(int(x[i, t]) * int(y[t, j]) for t in range(7)) % P for j in range(3)] for i in range(5)
    ]
    assert matmul_mod_p(x, y).tolist() == want
    a = rng.integers(-128, 128, (6, 9))
    b = rng.integers(-128, 128, (9, 4))
    assert exact_matmul(a, b).tolist() == (a @ b).tolist()
    big = np.full((2, 2), 1 << 28)
    assert exact_matmul(big, np.ones((2, 2), dtype=np.int64)).tolist() == [[1 << 29] * 2] * 2
    with pytest.raises(ValueError):
        exact_matmul(np.full((1, 4), 1 << 29), np.full((4, 1), 4))


def test_pow2_helpers():
    assert [next_pow2(n) for n in (1, 2, 3, 5, 8)] == [1, 2, 4, 8, 8]
    assert log2_exact(8) == 3
    with pytest.raises(ValueError):
        log2_exact(6)


def _instance(degree_terms, n_vars=4):
    mles = [QM31Array.random(rng, 1 << n_vars) for _ in range(4)]
    coeff = QM31Array.random(rng, 1).item(0)
    products = [Product(t, coeff if i else QM31.one()) for i, t in enumerate(degree_terms)]
    claim = QM31.zero()
    for term in products:
        acc = mles[term.mles[0]]
        for j in term.mles[1:]:
            acc = acc * mles[j]
        claim = claim + acc.sum() * term.coeff
    return mles, products, claim


@pytest.mark.parametrize(
    "terms", [[(0,)], [(0, 1)], [(0, 1, 2)], [(0, 1, 2, 3)], [(0, 1), (2, 3, 3), (1,)]]
)
def test_sumcheck_round_trip(terms):
    mles, products, claim = _instance(terms)
    proof, point, finals = prove_sumcheck(mles, products, Poseidon252Channel())
    degree = max(len(t) for t in terms)
    got_point, final = verify_sumcheck(claim, proof, 4, degree, Poseidon252Channel())
    assert got_point == point
    for f, v in zip(mles, finals):
        assert evaluate_qm31(f, point) == v
    expected = QM31.zero()
    for t in products:
        acc = t.coeff
        for j in t.mles:
            acc = acc * finals[j]
        expected = expected + acc
    assert final == expected


def evaluate_qm31(f, point):
    for r in point:
        f = fold(f, r)
    return f.item(0)


def test_tampered_coefficient_changes_final_claim():
    mles, products, claim = _instance([(0, 1)])
    proof, _, _ = prove_sumcheck(mles, products, Poseidon252Channel())
    for rnd, idx in itertools.product(range(4), range(2)):
        rounds = [list(r) for r in proof.rounds]
        rounds[rnd][idx] = rounds[rnd][idx] + QM31.one()
        point, final = verify_sumcheck(claim, SumcheckProof(rounds), 4, 2, Poseidon252Channel())
        assert final != evaluate_qm31(mles[0], point) * evaluate_qm31(mles[1], point)


def test_wrong_claim_is_caught():
    mles, products, claim = _instance([(0, 1)])
    proof, _, finals = prove_sumcheck(mles, products, Poseidon252Channel())
    _, final = verify_sumcheck(claim + QM31.one(), proof, 4, 2, Poseidon252Channel())
    assert final != finals[0] * finals[1]


def test_shape_checks():
    mles, products, claim = _instance([(0, 1)])
    proof, _, _ = prove_sumcheck(mles, products, Poseidon252Channel())
    with pytest.raises(VerificationError, match="sumcheck.round_count"):
        verify_sumcheck(claim, SumcheckProof(proof.rounds[:-1]), 4, 2, Poseidon252Channel())
    bad = [list(r) for r in proof.rounds]
    bad[1] = bad[1] + [QM31.one()]
    with pytest.raises(VerificationError, match="sumcheck.round_degree"):
        verify_sumcheck(claim, SumcheckProof(bad), 4, 2, Poseidon252Channel())
    with pytest.raises(ValueError):
        prove_sumcheck([*mles, mles[0]], [Product((0, 1, 2, 3, 4))], Poseidon252Channel())


def test_smaller_mles_prove_as_if_tiled():
    """MLEs of fewer variables, read on the last ones: the same proof, point and finals as
    tiling them over the first variables."""
    big = [QM31Array.random(rng, 16) for _ in range(2)]
    small = [QM31Array.random(rng, 4) for _ in range(3)]
    products = [Product((0, 1)), Product((2, 3, 4), QM31.from_int(5)), Product((2,))]
    tiled = [*big, *(QM31Array(np.tile(f.data, (4, 1))) for f in small)]
    want = prove_sumcheck(tiled, products, Poseidon252Channel())
    assert prove_sumcheck([*big, *small], products, Poseidon252Channel()) == want
    with pytest.raises(ValueError, match="one size"):
        prove_sumcheck([*big, *small], [Product((0, 2))], Poseidon252Channel())


def test_eq_combination_builds_only_the_blocks_of_boolean_prefixes():
    """Points with boolean leading coordinates (stacked columns' claims) give exactly the
    dense Σ_k c_k·eq(point_k, ·)."""
    n = 6
    points = [
        (*hypercube_point(2, 2), *rand_point(4)),
        (*hypercube_point(5, 3), *rand_point(3)),
        tuple(rand_point(n)),
        (QM31.one(), *rand_point(n - 1)),
        hypercube_point(9, n),
    ]
    coeffs = rand_point(len(points))
    dense = eq_table(points[0]) * coeffs[0]
    for point, c in zip(points[1:], coeffs[1:]):
        dense = dense + eq_table(point) * c
    assert eq_combination(points, coeffs) == dense


@pytest.mark.parametrize("sizes", [[0], [1], [5], [4, 4, 2, 0], [3, 5, 1]])
def test_pair_sumcheck_is_the_generic_one(sizes):
    """The pair sum-check (base tables, weights built when their rounds start, totals for the
    rounds before) sends exactly prove_sumcheck's proof of the products w_j·f_j, lifted to
    QM31, and ends on the same point with the same f_j values."""
    values = [rng.integers(0, P, 1 << k) for k in sizes]
    values[0][: len(values[0]) // 2] = P - 1  # extremes for the lazy reductions
    weights = [QM31Array.random(rng, 1 << k) for k in sizes]
    built: list[int] = []

    def build(j):
        built.append(j)
        return weights[j]

    pairs = [
        Pair(lambda j=j: build(j), values[j], weights[j].mul_base(values[j]).sum())
        for j in range(len(sizes))
    ]
    mles = [m for w, v in zip(weights, values) for m in (w, QM31Array.from_base(v))]
    products = [Product((2 * j, 2 * j + 1)) for j in range(len(sizes))]
    channel = Poseidon252Channel()
    proof, point, finals = prove_sumcheck(mles, products, channel)
    pair_channel = Poseidon252Channel()
    assert prove_pair_sumcheck(pairs, pair_channel) == (proof, point, finals[1::2])
    assert pair_channel.digest == channel.digest
    started = sorted((j for j, k in enumerate(sizes) if k > 0), key=lambda j: -sizes[j])
    assert built == started  # each once, the largest first
