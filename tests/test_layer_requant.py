"""Requantization proven with range lookups (kind requant): exact outputs against an
independent reference on odd shapes, the tables' closed forms against brute force, every field
tampered, and cheating provers (docs/layers/requant.md, "What a cheating prover cannot do")."""

import dataclasses
from fractions import Fraction
from math import floor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn import examples
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.registry import LAYERS
from cairn.prover.layers.requant import model as requant
from cairn.prover.layers.requant import prover as requant_prover
from cairn.prover.layers.requant.params import params_of
from cairn.prover.layers.requant.structured import clamp_mle, prefix_index_sum
from cairn.prover.mle import evaluate
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import (
    check_of,
    rejections,
    sampled_layer_mutations,
    witness_tamperings,
)

SPEC = LAYERS["requant"]
# (rows, cols, M, k, b): 1×1, non-powers of two, odd and even k, b = 8 and wider.
SHAPES = [(1, 1, 181, 22, 8), (3, 5, 3, 9, 8), (7, 2, 1, 12, 6), (4, 4, 7, 1, 4)]


@pytest.fixture(scope="module")
def proofs():
    return {
        shape: prove_walk(SPEC, examples.requant_example(*shape, seed=sum(shape)))
        for shape in SHAPES
    }


def _reference(x, m, k, b):
    """Exact rationals: round half up of x·M/2^k, then the symmetric clamp."""
    c = 2 ** (b - 1) - 1
    return np.array(
        [
            [max(-c, min(c, floor(Fraction(int(v) * m, 2**k) + Fraction(1, 2)))) for v in row]
            for row in x
        ]
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify_and_the_output_is_the_reference(proofs, shape):
    proof = proofs[shape]
    verify_walk(SPEC, proof)
    st = proof.statement
    assert np.array_equal(st.outputs["y"], _reference(st.inputs["x"], *shape[2:]))


def test_json_round_trip_verifies(proofs, tmp_path):
    path = tmp_path / "requant.json"
    proof_file.save(proofs[SHAPES[1]], path)
    verify_walk(SPEC, proof_file.load(path))


def _brute(values, point):
    return evaluate(embed(np.asarray(values, dtype=np.int64)), point)


def _point(seeds):
    return [QM31(*((s * 7919 + i) % (2**31 - 1) for i in range(4))) for s in seeds]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 6).flatmap(
        lambda t: st.tuples(
            st.just(t),
            st.lists(st.integers(0, 2**20), min_size=t, max_size=t),
            st.integers(-3, (1 << t) + 3),
            st.integers(-40, 40),
            st.integers(-40, 40),
        )
    )
)
def test_closed_forms_match_brute_force(args):
    t, seeds, a, off, width = args
    point = _point(seeds)
    i = np.arange(1 << t)
    assert prefix_index_sum(point, a) == _brute(i * (i < a), point)
    lo, hi = sorted((off, off + width))
    assert clamp_mle(point, off, lo, hi) == _brute(np.clip(i - off, lo, hi), point)


def test_every_field_tampered_is_rejected_by_a_named_check(proofs):
    proof = proofs[SHAPES[1]]
    checks = rejections(SPEC, proof, sampled_layer_mutations)
    assert {"gkr.layer", "gkr.mask_count", "requant.columns", "logup.numerator"} <= set(checks)
    assert any(c.startswith(("pcs.", "merkle.")) for c in checks)
    assert "walk.witness_opening" in checks  # the walk's opening removed


def test_the_witness_commitment_is_checked(proofs):
    for tampered in witness_tamperings(proofs[SHAPES[1]], "requant"):
        assert check_of(SPEC, tampered) == "requant.commitment"


def _with_dims(proof, **changes):
    stmt = proof.statement
    dims = list(stmt.dims)
    for name, value in changes.items():
        dims[requant.DIM_NAMES.index(name)] = value
    return dataclasses.replace(proof, statement=dataclasses.replace(stmt, dims=tuple(dims)))


DIMS_CASES = [
    ({"M": 0}, "requant.params"),
    ({"M": (1 << 31) - 1, "a": 0}, "requant.params"),  # M ≡ 0 mod p: not invertible (A = 0)
    ({"k": 0}, "requant.params"),
    ({"k": 31}, "requant.params"),  # A < 0: 2^(k−1) alone is past 2^30
    ({"b": 30}, "requant.params"),  # b + k > 30
    ({"a": 31}, "requant.params"),
    ({"w": 21}, "requant.params"),  # a window beyond 2^20
    ({"w": 0}, "requant.params"),
    ({"M": 1 << 20}, "statement.range"),  # A·M + 2^(k−1) ≥ 2^30: x·M could wrap
    ({"a": 2}, "statement.range"),  # x beyond the declared bound
    ({"rows": 2}, "statement.shape"),
]
"""Statement dims changed, and the check that refuses them (tests/cairo_walk_vectors.py runs
them on the Cairo verifier too)."""


@pytest.mark.parametrize(("changes", "check"), DIMS_CASES)
def test_statement_parameters_and_ranges_are_checked(proofs, changes, check):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, _with_dims(proofs[SHAPES[1]], **changes))
    assert e.value.check == check


def test_wrapping_inputs_are_refused_by_the_prover():
    with pytest.raises(ValueError, match="wrap"):
        requant.make_statement(np.full((2, 2), 1 << 25), 64, 8, 8)
    with pytest.raises(ValueError, match="overflow"):  # a quotient beyond the 2^20-row table
        requant.make_statement(np.full((1, 1), (1 << 29) - 1), 1, 1, 8)


def test_a_wide_declared_input_is_proven_in_the_quotient_window():
    """A hidden input's bound can be far above its values: the CLAMP table is cut to the
    narrowest window of quotients around 0 the honest ones fit (2^10 here, not 2^29)."""
    x = np.array([[1000, -999, 7]])
    st = requant.make_statement(x, 1, 1, 8, in_bits=29)
    assert params_of(st).windowed and params_of(st).table_bits == 10
    verify_walk(SPEC, prove_walk(SPEC, st))
    assert (st.outputs["y"] == [[127, -127, 4]]).all()


def test_a_large_table_near_the_bound_is_sound():
    """X + 2^(k−1) just below 2^30 with k = 11: a 2^20-row table, both extremes proven."""
    x = np.array([[(1 << 29) // 3, -((1 << 29) // 3)]])
    proof = prove_walk(SPEC, requant.make_statement(x, 3, 11, 8))
    verify_walk(SPEC, proof)


# -- cheating provers --------------------------------------------------------------------------

CHEAT = (3, 5, 3, 9, 8)  # odd k: RANGE limbs of 5 and 4 bits


def _cheat(monkeypatch, edit, shape=CHEAT, seed=4):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, cheat_proof(monkeypatch, edit, shape, seed))
    return e.value.check


def cheat_proof(monkeypatch, edit, shape=CHEAT, seed=4):
    """Prove with the trace `edit` returns from the honest one, y published as the edited y,
    the multiplicities those of the edited trace (what a cheater can best commit)."""
    stmt = examples.requant_example(*shape, seed=seed)
    p = params_of(stmt)
    honest = requant.trace(stmt.inputs["x"], p)
    cheat = edit(requant.RequantTrace(*(c.copy() for c in honest.columns().values())), p)
    monkeypatch.setattr(requant_prover, "trace", lambda *_: cheat)
    rows, cols = stmt.dims[:2]
    stmt = dataclasses.replace(stmt, outputs={"y": cheat.y[:rows, :cols]})
    return prove_walk(SPEC, stmt)


def _entry(t, p, where):
    """The first real entry (row 0) satisfying `where(t, idx)`."""
    for j in range(t.yq.shape[1]):
        if where(t, (0, j)):
            return (0, j)
    raise AssertionError("no such entry")


def test_a_remainder_of_2_to_the_k_split_into_in_range_limbs(monkeypatch):
    """y' one smaller, r + 2^k: r1 gains 2^⌊k/2⌋ and stays below 2^⌈k/2⌉ (odd k), so a
    single RANGE table of 2^⌈k/2⌉ would accept it; the shifted lookup r1 + δ does not."""

    def edit(t, p):
        idx = _entry(t, p, lambda t, i: t.r1[i] < 1 << p.hi_bits)
        t.yq[idx] -= 1
        t.r1[idx] += 1 << p.hi_bits
        assert t.r1[idx] < 1 << p.lo_bits
        t.y[idx] = np.clip(t.yq[idx], -p.clamp, p.clamp)
        return t

    assert _cheat(monkeypatch, edit) == "logup.balance"


def off_by_one(step):
    """y' ± 1 and r ∓ 2^k (the same x): a limb leaves its range."""

    def edit(t, p):
        idx = _entry(t, p, lambda t, i: abs(t.yq[i]) < p.clamp)
        t.yq[idx] += step
        t.r1[idx] -= step << (p.shift - p.lo_bits)
        t.y[idx] = t.yq[idx]
        return t

    return edit


@pytest.mark.parametrize("step", [-1, 1])
def test_y_off_by_one_with_the_remainder_adjusted(monkeypatch, step):
    assert _cheat(monkeypatch, off_by_one(step)) == "logup.balance"


def test_a_wrong_clamp(monkeypatch):
    """y ≠ clamp(y') where the clamp bites (y' > C published unclamped is beyond b bits, so
    publish C − 1 instead)."""

    def edit(t, p):
        idx = _entry(t, p, lambda t, i: t.yq[i] > p.clamp)
        t.y[idx] = p.clamp - 1
        return t

    assert _cheat(monkeypatch, edit, shape=(3, 5, 3, 6, 4)) == "logup.balance"


def test_an_unclamped_output(monkeypatch):
    def edit(t, p):
        idx = _entry(t, p, lambda t, i: t.yq[i] > p.clamp)
        t.y[idx] = t.yq[idx]
        return t

    assert _cheat(monkeypatch, edit, shape=(3, 5, 3, 6, 4)) == "logup.balance"


def test_a_remainder_substituted_after_the_challenges():
    """The honest witness is committed; everything after the challenges uses r0 with two
    entries swapped (same multiset, so every lookup balances and the sent columns match the
    LogUp): x̃(ρ), rebuilt from the columns, no longer matches x, and the walk's input
    settlement, which comes before the witness opening, tells."""

    def advise(stmt, pcs):
        commitments, advice = requant_prover.advise_requant(stmt, pcs)
        r0 = advice.trace.r0.copy()
        assert r0[0, 0] != r0[0, 1]
        r0[0, 0], r0[0, 1] = r0[0, 1], r0[0, 0]
        return commitments, dataclasses.replace(
            advice, trace=dataclasses.replace(advice.trace, r0=r0)
        )

    stmt = examples.requant_example(*CHEAT, seed=4)
    proof = prove_walk(dataclasses.replace(SPEC, advise=advise), stmt)
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, proof)
    assert e.value.check == "walk.input_claim"


def test_the_walk_opens_exactly_the_witness_claims(proofs):
    """A layer that leaves no claim on a stack (`walk.witness_claims`), a proof without
    witness that carries an opening (`walk.witness_opening`), and a configuration whose one
    opening is below 96 bits (`walk.params`)."""
    proof = proofs[SHAPES[1]]

    def verify_without_witness(st, layer, outputs, channel):
        return dataclasses.replace(SPEC.verify(st, layer, outputs, channel), witness={})

    assert check_of(dataclasses.replace(SPEC, verify=verify_without_witness), proof) == (
        "walk.witness_claims"
    )
    add = prove_walk(LAYERS["add"], examples.add_example(2, 3, seed=0))
    assert add.witness_opening is None
    stray = dataclasses.replace(add, witness_opening=proof.witness_opening)
    assert check_of(LAYERS["add"], stray) == "walk.witness_opening"
    weak = dataclasses.replace(SPEC, opening_claims=1 << 100)  # (4n + K)/|F| ≈ 2^-24
    assert check_of(weak, proof) == "walk.params"


def test_a_witness_on_poseidon_trees_verifies():
    """`prove_walk(..., witness_hash="poseidon")`: the stacks and the opening on Poseidon252
    trees, which the verifier reads off the commitment."""
    proof = prove_walk(SPEC, examples.requant_example(*CHEAT, seed=4), witness_hash="poseidon")
    assert {c.hash for c in proof.statement.witness.values()} == {"poseidon"}
    verify_walk(SPEC, proof)
