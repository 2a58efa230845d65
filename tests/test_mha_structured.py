"""Closed-form MLEs of P, U, z, m and b equal brute force: build the matrix from its definition
(docs/layers/mha.md), evaluate its MLE at a random point."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.fields.m31 import embed
from cairn.prover.layers.mha.heads import head_select_table
from cairn.prover.layers.mha.model import MASK_VALUE, Dims
from cairn.prover.layers.mha.prover import pad_table, unpad_table
from cairn.prover.layers.mha.structured import (
    head_select_mle,
    mask_mle,
    pad_mle,
    unpad_mle,
    zeroifier_mle,
)
from cairn.prover.mle import col_combination, eq_table, evaluate
from tests import cairo_mha_vectors
from tests.points import n_vars, np2, random_point

SIZES = st.integers(1, 17)


def _padding_matrix(h, m):
    """Seed 000: P[i, j] = 1 iff j mod m̂ < m ∧ ⌊j/m̂⌋ < h ∧ i = ⌊j/m̂⌋·m + j mod m̂."""
    m_hat = np2(m)
    i = np.arange(np2(h * m))[:, None]
    j = np.arange(np2(h) * m_hat)[None, :]
    jh, jm = j // m_hat, j % m_hat
    return ((jm < m) & (jh < h) & (i == jh * m + jm)).astype(np.int64)


def _unpadding_matrix(h, m):
    """Seed 000: U[i, j] = 1 iff ⌊j/m⌋ < h ∧ ⌊i/m̂⌋ = ⌊j/m⌋ ∧ i mod m̂ = j mod m."""
    m_hat = np2(m)
    i = np.arange(np2(h) * m_hat)[:, None]
    j = np.arange(np2(h * m))[None, :]
    return ((j // m < h) & (i // m_hat == j // m) & (i % m_hat == j % m)).astype(np.int64)


def _zeroifier(s, causal):
    i = np.arange(np2(s))[:, None]
    j = np.arange(np2(s))[None, :]
    return ((i < s) & (j < s) & ((i >= j) | (not causal))).astype(np.int64)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), SIZES, st.integers(0, 2**32))
def test_padding_and_unpadding_closed_forms(h, m, seed):
    rng = np.random.default_rng(seed)
    p, u = _padding_matrix(h, m), _unpadding_matrix(h, m)
    assert np.array_equal(u, p.T)
    x, y = random_point(rng, n_vars(p.shape[0])), random_point(rng, n_vars(p.shape[1]))
    assert pad_mle(h, m, x, y) == evaluate(p.ravel(), x + y)
    assert unpad_mle(h, m, y, x) == evaluate(u.ravel(), y + x)
    # The prover's tables are the same MLEs with one side fixed.
    dims = Dims(1, h, m, False)
    assert pad_table(dims, y) == col_combination(p, eq_table(y))
    assert unpad_table(dims, x) == col_combination(u, eq_table(x))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40), st.booleans(), st.integers(0, 2**32))
def test_zeroifier_and_mask_closed_forms(s, causal, seed):
    rng = np.random.default_rng(seed)
    z = _zeroifier(s, causal)
    a, b = random_point(rng, n_vars(len(z))), random_point(rng, n_vars(len(z)))
    assert zeroifier_mle(s, causal, a, b) == evaluate(z.ravel(), a + b)
    mask = np.where(z == 1, 0, MASK_VALUE)
    assert mask_mle(s, causal, a, b) == evaluate(embed(mask).ravel(), a + b)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4), st.integers(0, 5), st.integers(0, 2**32))
def test_head_select_closed_form(head_vars, inner_vars, seed):
    """b[i] = β(⌊i / 2^inner⌋, r_head): for QKᵀ inner = log m̂, for A·Ṽ inner = log ŝ."""
    rng = np.random.default_rng(seed)
    r_head = random_point(rng, head_vars)
    size = 1 << (head_vars + inner_vars)
    point = random_point(rng, head_vars + inner_vars)
    table = head_select_table(r_head, size)
    heads = [evaluate(row, r_head) for row in np.eye(1 << head_vars, dtype=np.int64)]
    assert table.to_list() == [heads[i >> inner_vars] for i in range(size)]
    assert head_select_mle(r_head, point) == (table * eq_table(point)).sum()


def test_extreme_shapes_are_covered():
    """s = 1, h = 1, m = 1 and exact powers of two: zero-variable sides and full bounds."""
    rng = np.random.default_rng(0)
    for h, m in [(1, 1), (1, 8), (8, 1), (4, 4), (1, 3), (3, 1)]:
        p = _padding_matrix(h, m)
        x, y = random_point(rng, n_vars(p.shape[0])), random_point(rng, n_vars(p.shape[1]))
        assert pad_mle(h, m, x, y) == evaluate(p.ravel(), x + y)
    for s in (1, 2, 8):
        for causal in (False, True):
            z = _zeroifier(s, causal)
            a, b = random_point(rng, n_vars(s)), random_point(rng, n_vars(s))
            assert zeroifier_mle(s, causal, a, b) == evaluate(z.ravel(), a + b)


def test_cairo_vectors_are_current():
    """The Cairo closed forms' generated tests (verifier_cairo/src/tests/mha_vectors.cairo)."""
    assert cairo_mha_vectors.OUTPUT.read_text() == cairo_mha_vectors.render(), (
        "run `python -m tests.cairo_mha_vectors`"
    )
