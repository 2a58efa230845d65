"""The integer side of the softmax proof: parameters and their statement check, the exp table
and its pinned root, the honest trace on random and adversarial rows, the multiplicities, and
the closed-form MLEs against brute force."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.errors import VerificationError
from cairn.prover.layers.mha.model import Dims, head_scores
from cairn.prover.mle import evaluate
from cairn.prover.pcs.params import WITNESS_PCS
from cairn.prover.softmax import model
from cairn.prover.softmax.model import (
    forward,
    multiplicities,
    nearest_shift,
    norm_slacks,
    row_sums,
    trace_with_shifts,
    valid_entries,
)
from cairn.prover.softmax.params import (
    DELTA,
    EXP_BITS,
    THETA,
    U_BITS,
    U_MASK,
    SoftmaxParams,
    epsilon,
    s_max,
)
from cairn.prover.softmax.structured import (
    index_mle,
    is_zero_mle,
    valid_entries_mle,
    valid_rows_mle,
)
from cairn.prover.softmax.tables import (
    EXP_TABLE_ROOTS,
    exp_table,
    exp_table_commitment,
    pinned_exp_commitment,
)
from tests.points import n_vars, np2, random_point

ONE = 1 << THETA


# -- parameters ------------------------------------------------------------------------------


def test_minilm_parameters():
    p = SoftmaxParams.derive(128, 32, 7e-4)
    assert (p.f, p.c, p.theta, p.eps, p.k_n) == (19, 367, 19, 194, 9)
    assert (p.lo_bits, p.hi_bits) == (7, 7)
    assert p.c * s_max(32) <= 1 << 28
    assert abs(p.gamma / 7e-4 - 1) <= 1 / (2 * p.c)
    assert p.l1_bound(128) == pytest.approx((194 + 128) / ONE + 2 * DELTA)
    assert 1.0e-3 < p.l1_bound(128) < 1.2e-3
    p.check(128, 32)
    # ε grows with ŝ only; s = 2048 is the longest context θ = 19 allows.
    long = SoftmaxParams.derive(2048, 64, 3e-4)
    assert (long.eps, long.k_n) == (1154, 12)
    long.check(2048, 64)


@pytest.mark.parametrize("gamma", [1e-7, 3e-6, 1e-4, 7e-4, 0.01, 0.05])
@pytest.mark.parametrize("m", [1, 32, 64, 80])
def test_derived_parameters_pass_the_check(gamma, m):
    try:
        p = SoftmaxParams.derive(100, m, gamma)
    except ValueError:
        assert gamma * 2**25 < 0.5 or gamma * s_max(m) > 2**16
        return
    p.check(100, m)
    assert 12 <= p.f <= 25 and p.c * s_max(m) <= 1 << 28
    # F is the largest with c·S_max ≤ 2^28 (or 25).
    assert p.f == 25 or round(gamma * 2 ** (p.f + 1)) * s_max(m) > 1 << 28


@pytest.mark.parametrize(
    ("s", "m", "gamma", "why"),
    [
        (128, 32, 0.5, "F = 10 < 12"),  # logits too wide for a 2^-12 resolution
        (128, 32, 1e-9, "c = 0 < 1"),  # γ·2^25 rounds to 0
        (4096, 32, 7e-4, "ŝ·2^θ = 4096·2^19 > 2^30"),  # row sums could wrap
        (0, 32, 7e-4, "s, m ≥ 1"),
        (128, 32, -1.0, "positive finite γ"),
    ],
)
def test_derive_refuses(s, m, gamma, why):
    with pytest.raises(ValueError, match=re.escape(why)):
        SoftmaxParams.derive(s, m, gamma)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"f": 11}, "F = 11 not in [12, 25]"),
        ({"f": 26}, "F = 26 not in [12, 25]"),
        ({"c": 0}, "c = 0 < 1"),
        ({"c": (1 << 28) // s_max(32) + 1}, f"c·S_max = {521 * s_max(32)} > 2^28"),
        ({"theta": 18, "eps": epsilon(128, 18)}, "no fixed exp table for θ = 18"),
        ({"eps": 193}, "ε = 193, expected 194"),
        ({"eps": 195}, "ε = 195, expected 194"),
        ({"k_n": 10}, "k_n = 10, expected"),
    ],
)
def test_check_refuses(change, why):
    p = SoftmaxParams.derive(128, 32, 7e-4)
    bad = SoftmaxParams(**{**p.__dict__, **change})
    with pytest.raises(VerificationError, match=re.escape(why)) as err:
        bad.check(128, 32)
    assert err.value.check == "softmax.params"


def test_check_refuses_contexts_that_wrap_and_mismatched_sizes():
    p = SoftmaxParams.derive(2048, 32, 7e-4)
    for s, m, why in [(4096, 32, "ŝ·2\\^θ"), (128, 32, "ε = 1154"), (2048, 0, "m = 0")]:
        with pytest.raises(VerificationError, match=why) as err:
            p.check(s, m)
        assert err.value.check == "softmax.params"
    # c fitted to m = 32 overflows 2^28 at m = 64.
    with pytest.raises(VerificationError, match="c·S_max"):
        SoftmaxParams.derive(128, 32, 7e-4).check(128, 64)


def test_pcs_parameters_reach_96_bits_up_to_2_23():
    for params in WITNESS_PCS.values():
        for n in (21, 22, 23):
            assert params.security_bits(n, 12) >= 97
        assert params.max_n_vars >= 23


# -- the exp table ---------------------------------------------------------------------------


def test_exp_table():
    t = exp_table()
    assert t.shape == (1 << EXP_BITS,) and t.dtype == np.int64 and not t.flags.writeable
    assert t[0] == ONE and np.all(np.diff(t) <= 0)
    # 2^19·exp(−e/4096) < ½ exactly when e > 4096·ln(2^20): the tail is 0 from there on, so
    # an argument ≥ 16 (hi ≠ 0) rightly gives 0 too.
    last = math.floor(4096 * 20 * math.log(2))
    assert t[last] == 1 and np.all(t[last + 1 :] == 0)
    assert ONE * math.exp(-16) < 0.5
    # Unambiguous rounding: no entry is within 10^-6 of a tie, and libm agrees everywhere.
    x = np.ldexp(np.exp(-np.arange(1 << EXP_BITS) / 4096), THETA)
    assert np.min(np.abs(x - np.floor(x) - 0.5)) > 1e-6
    assert all(round(ONE * math.exp(-e / 4096)) == t[e] for e in range(0, 1 << EXP_BITS, 97))


@pytest.mark.parametrize("hash_", sorted(WITNESS_PCS))
def test_pinned_exp_table_root(hash_):
    data = exp_table_commitment(THETA, hash_)
    assert data.commitment.root == EXP_TABLE_ROOTS[THETA][hash_]
    assert pinned_exp_commitment(THETA, hash_) == data.commitment
    assert data.commitment.n_vars == EXP_BITS and data.commitment.hash == hash_


# -- the honest trace ------------------------------------------------------------------------


def _check_trace(scores, valid, p, trace):
    """Every invariant the proof relies on, for an honest trace."""
    u = trace.lo + (trace.e << p.lo_bits) + (trace.hi << (p.lo_bits + EXP_BITS))
    expected = np.where(valid, trace.z[..., None] - p.c * scores, U_MASK)
    assert np.array_equal(u, expected)
    assert u.min() >= 0 and u.max() < 1 << U_BITS
    assert trace.lo.max() < 1 << p.lo_bits and trace.e.max() < 1 << EXP_BITS
    assert trace.hi.max() < 1 << p.hi_bits
    assert np.array_equal(trace.live, (trace.hi == 0).astype(np.int64))
    assert np.array_equal(trace.y, trace.live * exp_table()[trace.e])
    # Masked and padded entries: u = U_MASK, so hi = 2^(25−F) ≠ 0 and y = 0 exactly.
    assert np.all(trace.hi[~valid] == 1 << (25 - p.f)) and np.all(trace.y[~valid] == 0)
    assert np.array_equal(trace.rows, valid.any(axis=-1))
    r = row_sums(trace)
    assert np.all(np.abs(r[trace.rows] - ONE) <= p.eps) and np.all(r[~trace.rows] == 0)
    n1, n2 = norm_slacks(trace, p)
    assert n1.min() >= 0 and n2.min() >= 0 and max(n1.max(), n2.max()) < 1 << p.k_n
    m_exp, m_limb, m_norm = multiplicities(trace, p)
    assert (len(m_exp), len(m_limb), len(m_norm)) == (1 << 17, 1 << 14, 1 << p.k_n)
    assert m_exp.sum() == m_limb.sum() == valid.size and m_norm.sum() == 2 * trace.rows.size
    assert m_exp[1 << EXP_BITS :].sum() == trace.live.sum()
    assert m_limb[(1 << (25 - p.f)) << p.lo_bits] >= (~valid).sum()
    assert np.all(trace.z[~trace.rows] == 0)
    return r


def _l1(trace, scores, valid, p):
    """Per valid row: ‖y/2^θ − softmax((c/2^F)·S)‖₁."""
    x = np.where(valid, p.c * scores / 2.0**p.f, -np.inf)
    x = x - np.where(valid.any(-1), x.max(-1), 0)[..., None]
    ex = np.exp(x)
    ref = ex / np.where(valid.any(-1), ex.sum(-1), 1)[..., None]
    return np.abs(trace.y / ONE - ref).sum(-1)[valid.any(-1)]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(1, 5),
    st.sampled_from([1, 8, 32, 64]),
    st.booleans(),
    st.floats(1e-5, 3e-3),
    st.integers(0, 2**32),
)
def test_honest_rows_from_int8_heads(s, h, m, causal, gamma, seed):
    rng = np.random.default_rng(seed)
    dims = Dims(s, h, m, causal)
    q, k = (rng.integers(-127, 128, (s, h * m)) for _ in range(2))
    scores = head_scores(q, k, dims)
    try:
        p = SoftmaxParams.derive(s, m, gamma)
    except ValueError:
        return  # γ·S_max too wide for F ≥ 12
    valid = valid_entries(h, s, causal)
    trace = forward(scores, valid, p)
    _check_trace(scores, valid, p, trace)
    assert _l1(trace, scores, valid, p).max() <= p.l1_bound(s)


def _one_head(rows):
    """Scores and validity for one head whose rows are the given lists (rest padded)."""
    s = max(len(r) for r in rows)
    s_hat = np2(max(s, len(rows)))
    scores = np.zeros((1, s_hat, s_hat), dtype=np.int64)
    valid = np.zeros((1, s_hat, s_hat), dtype=bool)
    for i, row in enumerate(rows):
        scores[0, i, : len(row)] = row
        valid[0, i, : len(row)] = True
    return scores, valid


@pytest.mark.parametrize("gamma", [7e-4, 1e-5, 2e-3])
def test_adversarial_rows(gamma):
    m, s = 32, 128
    p = SoftmaxParams.derive(s, m, gamma)
    big = s_max(m)
    rows = [
        [0] * s,  # all equal: 128 entries of 2^19/128
        [big] * s,
        [-big] * s,
        [big] + [-big] * (s - 1),  # one-hot
        [-big] * (s - 1) + [big],
        [big, -big] * (s // 2),  # two extreme halves
        [big, big - 1] + [-big] * (s - 2),
        list(range(-big, big, 2 * big // s))[:s],  # a ramp over the whole range
        [7],  # causal first row: one entry, u = 0, y = 2^19 exactly
        [big],
        [-big],
    ]
    scores, valid = _one_head(rows)
    trace = forward(scores, valid, p)
    r = _check_trace(scores, valid, p, trace)
    assert r[0, 8] == r[0, 9] == r[0, 10] == ONE
    assert _l1(trace, scores, valid, p).max() <= p.l1_bound(s)


def test_smallest_instance():
    """s = h = m = 1: no MLE variables at all; the one entry is the whole row."""
    p = SoftmaxParams.derive(1, 1, 7e-4)
    for qk in (-127, 0, 127):
        scores = head_scores(np.array([[qk]]), np.array([[127]]), Dims(1, 1, 1, True))
        valid = valid_entries(1, 1, True)
        trace = forward(scores, valid, p)
        _check_trace(scores, valid, p, trace)
        assert trace.y.tolist() == [[[ONE]]]


def test_masked_heads_rows_and_keys_are_exactly_zero():
    rng = np.random.default_rng(3)
    h, s, m = 3, 5, 32
    dims = Dims(s, h, m, True)
    q, k = (rng.integers(-127, 128, (s, h * m)) for _ in range(2))
    scores = head_scores(q, k, dims)
    # Padded entries are arbitrary scores too: the mask, not the score, must zero them.
    scores = np.where(
        valid_entries(h, s, True), scores, rng.integers(-s_max(m), s_max(m), scores.shape)
    )
    p = SoftmaxParams.derive(s, m, 7e-4)
    trace = forward(scores, valid_entries(h, s, True), p)
    _check_trace(scores, valid_entries(h, s, True), p, trace)
    assert np.all(trace.y[h:] == 0)  # padded head
    assert np.all(trace.y[:, s:] == 0) and np.all(trace.y[:, :, s:] == 0)  # padded rows, keys
    assert np.all(np.triu(trace.y[0], 1) == 0)  # causal


def test_valid_entries_match_the_definition():
    for h, s, causal in [(1, 1, False), (3, 5, True), (4, 8, False), (12, 7, True)]:
        w = valid_entries(h, s, causal)
        x, i, j = np.indices(w.shape)
        assert np.array_equal(w, (x < h) & (i < s) & (j < s) & ((j <= i) | (not causal)))


def _wide_row(p):
    return p.c * np.linspace(-30000, 30000, 100).astype(np.int64)


def test_nearest_shift_reaches_the_admissible_interval_edge():
    p = SoftmaxParams.derive(128, 32, 7e-4)
    x = _wide_row(p)

    def sum_at(z):
        scores, valid = _one_head([list(x // p.c)])
        z_arr = np.zeros(valid.shape[:2], dtype=np.int64)
        z_arr[0, 0] = z
        return row_sums(trace_with_shifts(scores, valid, p, z_arr))[0, 0]

    top = int(x.max())
    z = nearest_shift(x, top, p)  # from the max: too much mass, the shift must rise
    assert abs(sum_at(z) - ONE) <= p.eps and sum_at(z - 1) > ONE + p.eps
    z = nearest_shift(x, top + (1 << 24), p)  # far too little mass: it must fall
    assert abs(sum_at(z) - ONE) <= p.eps and sum_at(z + 1) < ONE - p.eps
    assert nearest_shift(x, z, p) == z


def test_forward_repairs_a_bad_shift(monkeypatch):
    p = SoftmaxParams.derive(128, 32, 7e-4)
    scores, valid = _one_head([list(_wide_row(p) // p.c), [0] * 100])
    honest = model.honest_shifts(scores, valid, p)
    monkeypatch.setattr(model, "honest_shifts", lambda *_: honest + 50 * 2**p.lo_bits)
    trace = forward(scores, valid, p)
    _check_trace(scores, valid, p, trace)


def test_out_of_range_witnesses_are_refused():
    p = SoftmaxParams.derive(128, 32, 7e-4)
    scores, valid = _one_head([[5, 9, 1]])
    z = model.honest_shifts(scores, valid, p)
    low = z.copy()
    low[0, 0] = 9 * p.c - 1  # below the row's max: u = −1 there
    with pytest.raises(ValueError, match="leaves"):
        trace_with_shifts(scores, valid, p, low)
    with pytest.raises(ValueError, match="misses"):
        multiplicities(trace_with_shifts(scores, valid, p, z + (1 << 20)), p)


# -- closed-form MLEs ------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 9), st.integers(1, 20), st.booleans(), st.integers(0, 2**32))
def test_valid_entries_and_rows_closed_forms(h, s, causal, seed):
    rng = np.random.default_rng(seed)
    w = valid_entries(h, s, causal).astype(np.int64)
    point = random_point(rng, n_vars(h) + 2 * n_vars(s))
    assert valid_entries_mle(h, s, causal, point) == evaluate(w.ravel(), point)
    heads, rows = np.indices((np2(h), np2(s)))
    v = ((heads < h) & (rows < s)).astype(np.int64)
    point = random_point(rng, n_vars(h) + n_vars(s))
    assert valid_rows_mle(h, s, point) == evaluate(v.ravel(), point)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 12), st.integers(0, 2**32))
def test_index_and_is_zero_closed_forms(k, seed):
    rng = np.random.default_rng(seed)
    point = random_point(rng, k)
    assert index_mle(point) == evaluate(np.arange(1 << k), point)
    assert is_zero_mle(point) == evaluate((np.arange(1 << k) == 0).astype(np.int64), point)


def test_closed_forms_refuse_points_of_the_wrong_size():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        valid_entries_mle(3, 5, True, random_point(rng, 7))
    with pytest.raises(ValueError):
        valid_rows_mle(3, 5, random_point(rng, 4))
