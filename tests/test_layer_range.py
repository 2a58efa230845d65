"""Declared ranges of weights proven by lookups (kind range): honest proofs with summed, whole and
split weights, every field tampered, the statement checks, cheating provers, |w| and the column
sums (docs/layers/range.md). What a model walk gains from them: tests/test_graph_declared.py."""

import dataclasses

import numpy as np
import pytest

from cairn import examples
from cairn.prover.errors import VerificationError
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.range import prover as range_prover
from cairn.prover.layers.range import relations
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import pad_tensor
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.verifier import verify_walk
from tests.proof_mutations import check_of, rejections, sampled_layer_mutations, witness_tamperings

SPEC = LAYERS["range"]


def statement(rows, cols, bits, seed=0):
    """W (rows × cols) over all of `bits` (summed up to 16 bits: |w| ≤ 2^(bits−1) − 1), both
    extremes included; a 22-bit bias (two limbs, −2^21 ≤ b < 2^21); a summed 3-D tensor of 2
    bits (−1, 0, 1); a 5-bit vector not summed (−16 … 15)."""
    rng = np.random.default_rng(seed)
    top = (1 << (bits - 1)) - 1
    w = rng.integers(-top, top + 1, (rows, cols), dtype=np.int64)
    w.flat[0], w.flat[-1] = -top, top
    b = rng.integers(-(1 << 21), 1 << 21, cols, dtype=np.int64)
    b[0], b[-1] = (1 << 21) - 1, -(1 << 21)
    t = rng.integers(-1, 2, (2, 3, 2), dtype=np.int64)
    u = rng.integers(-16, 16, rows, dtype=np.int64)
    u[0] = -16
    summed = [bits <= 16, False, True, False]
    return range_check.make_statement([w, b, t, u], [bits, 22, 2, 5], summed)


SHAPES = [(3, 5, 7), (2, 9, 20), (1, 1, 1)]


@pytest.fixture(scope="module")
def proofs():
    out = {}
    for shape in SHAPES:
        st, data = commit_weights(statement(*shape, seed=sum(shape)), POSEIDON_PARAMS)
        out[shape] = prove_walk(SPEC, st, data)
    return out


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify(proofs, shape):
    verify_walk(SPEC, proofs[shape])


def test_public_weights_verify_too():
    verify_walk(SPEC, prove_walk(SPEC, statement(2, 3, 5)))


def test_the_example_is_a_minilm_projection():
    st = examples.range_example(3, 4, 12, seed=1)
    assert st.dims == (12, 1, 2, 3, 4, 22, 0, 1, 4)


def test_every_field_tampered_is_rejected_by_a_named_check(proofs):
    checks = rejections(SPEC, proofs[SHAPES[1]], sampled_layer_mutations)
    assert {"gkr.layer", "gkr.mask_count"} <= set(checks)
    assert any(c.startswith(("pcs.", "merkle.")) for c in checks)
    assert "walk.witness_opening" in checks


def test_the_witness_commitment_is_checked(proofs):
    for tampered in witness_tamperings(proofs[SHAPES[0]], "range"):
        assert check_of(SPEC, tampered) == "range.commitment"


def _with_dims(proof, dims):
    st = dataclasses.replace(proof.statement, dims=tuple(dims))
    return dataclasses.replace(proof, statement=st)


@pytest.mark.parametrize(
    ("dims", "check"),
    [
        ((), "statement.shape"),
        ((7, 1, 2, 3), "statement.shape"),  # a shape cut short
        ((7, 1, 0, 3, 5), "statement.shape"),  # rank 0
        ((7, 1, 5, 1, 1, 1, 1, 1), "statement.shape"),  # rank beyond 4
        ((7, 1, 2, 3, 0), "statement.shape"),
        ((7, 2, 2, 3, 5), "statement.shape"),  # summed neither 0 nor 1
        ((0, 1, 2, 3, 5), "range.params"),
        ((31, 0, 2, 3, 5), "range.params"),
        ((17, 1, 2, 3, 5), "range.params"),  # summed beyond 16 bits
        ((7, 1, 2, 5, 3, 22, 0, 1, 5, 2, 1, 3, 2, 3, 2, 5, 0, 1, 3), "statement.shape"),  # Wᵀ
        ((7, 1, 2, 3, 5, 22, 0, 1, 5, 2, 1, 3, 2, 3, 2, 5, 0, 1, 3, 7, 0, 1, 1), "statement.shape"),
    ],
)
def test_statement_dims_are_checked(proofs, dims, check):
    assert check_of(SPEC, _with_dims(proofs[SHAPES[0]], dims)) == check


def test_a_declared_width_other_than_the_proven_one_is_refused(proofs):
    dims = list(proofs[SHAPES[0]].statement.dims)
    dims[0] += 1  # 8 bits claimed for the 7 the lookups were made for: a wider table
    assert check_of(SPEC, _with_dims(proofs[SHAPES[0]], dims)) == "gkr.mask_count"


def test_at_most_32_weights():
    with pytest.raises(ValueError, match="1 to 32 weights"):
        range_check.make_statement([np.zeros(2, dtype=np.int64)] * 33)


def test_the_prover_refuses_a_weight_beyond_its_bits():
    with pytest.raises(ValueError, match="beyond 4 signed bits"):
        range_check.make_statement([np.array([8])], [4])
    with pytest.raises(ValueError, match="beyond 4 signed bits"):
        range_check.make_statement([np.array([-8])], [4])  # summed: symmetric
    range_check.make_statement([np.array([-8])], [4], [False])
    with pytest.raises(ValueError, match="beyond 17 signed bits"):
        range_check.make_statement([np.array([1 << 16])], [17])
    assert range_check.bits_of(np.array([-7, 7]), summed=True) == 4
    assert range_check.bits_of(np.array([-8, 7]), summed=True) == 5
    assert range_check.bits_of(np.array([-8, 7])) == 4
    assert range_check.bits_of(np.array([-(1 << 16), 5])) == 17
    assert range_check.bits_of(np.array([0])) == 1


# -- cheating provers --------------------------------------------------------------------------


def _cheat(weights, bits):
    """A statement declaring `bits` for weights that may not fit them, proven anyway."""
    dims = []
    for w, b in zip(weights, bits, strict=True):
        dims += relations.Declared(b, b <= 16, w.shape).dims
    names = {relations.weight_name(i): w for i, w in enumerate(weights)}
    layout = relations.RangeLayout.of(dims)
    sums = {  # within their bounds, so the statement passes and the lookup is what fails
        relations.sums_name(i): np.minimum(d.sums(weights[i]), d.sums_bound())
        for i, d in enumerate(layout.weights)
        if d.sums_shape
    }
    st = Statement("range", tuple(dims), {}, sums, names)
    st, data = commit_weights(st, POSEIDON_PARAMS)
    return check_of(SPEC, prove_walk(SPEC, st, data))


@pytest.mark.parametrize("beyond", [8, -8, 1 << 20, -(1 << 30) + 1])
def test_a_whole_weight_beyond_its_bits_fails_the_lookup(beyond):
    w = np.array([[1, 2, beyond], [0, -7, 7]])
    assert _cheat([w], [4]) == "logup.balance"


@pytest.mark.parametrize("beyond", [8, -9])
def test_a_weight_not_summed_beyond_its_bits_fails_the_lookup(monkeypatch, beyond):
    real = range_check.bits_of
    monkeypatch.setattr(range_check, "bits_of", lambda w, summed=False: 4)
    st = range_check.make_statement([np.array([1, beyond, -8, 7])], [4], [False])
    monkeypatch.setattr(range_check, "bits_of", real)
    st, data = commit_weights(st, POSEIDON_PARAMS)
    assert check_of(SPEC, prove_walk(SPEC, st, data)) == "logup.balance"


@pytest.mark.parametrize("beyond", [1 << 21, -(1 << 21) - 1, 1 << 29])
def test_a_split_weight_beyond_its_bits_fails_the_lookup(beyond):
    assert _cheat([np.array([5, beyond, -3])], [22]) == "logup.balance"


def test_a_table_in_another_order_is_refused(monkeypatch):
    """The prover's tables with their rows (and multiplicities) reversed: the lookups balance,
    but a table's leaf is not its rows' MLE."""
    real = relations.fractions

    def reversed_tables(layout, challenges, keys, counts):
        out = real(layout, challenges, keys, counts)
        for j in range(len(layout.tables)):
            f = out[len(layout.columns) + j]
            out[len(layout.columns) + j] = dataclasses.replace(
                f, numerators=f.numerators[::-1], denominators=f.denominators[::-1]
            )
        return out

    def unchecked_claims(layout, challenges, leaves, magnitudes, outputs):
        def table_leaf(table):
            return leaves[len(layout.columns) + layout.tables.index(table)].denominator

        with monkeypatch.context() as m:  # the cheat's own claims, the table check skipped
            m.setattr(
                relations.Table,
                "rows_mle",
                lambda self, point, beta: challenges.alphas[self] - table_leaf(self),
            )
            return real_claims(layout, challenges, leaves, magnitudes, outputs)

    real_claims = relations.leaf_claims
    st, data = commit_weights(statement(2, 3, 5), POSEIDON_PARAMS)
    monkeypatch.setattr(range_prover, "fractions", reversed_tables)
    monkeypatch.setattr(range_prover, "leaf_claims", unchecked_claims)
    assert check_of(SPEC, prove_walk(SPEC, st, data)) == "range.table"


def test_a_layer_walk_declaring_ranges_is_refused(proofs):
    proof = proofs[SHAPES[0]]
    st = dataclasses.replace(proof.statement, ranged=frozenset({"w00"}))
    assert check_of(SPEC, dataclasses.replace(proof, statement=st)) == "statement.shape"


# -- |w| and the column sums -------------------------------------------------------------------


def test_column_sums_other_than_the_committed_weights_are_rejected():
    """Proven for sums one off (the transcript consistent): the claim on |w| at (½…, r) is
    false, and the witness opening's merged claim fails."""
    st = statement(3, 5, 7)
    sums = st.outputs["s00"].copy()
    sums[0] += 1
    st = dataclasses.replace(st, outputs={**st.outputs, "s00": sums})
    st, data = commit_weights(st, POSEIDON_PARAMS)
    assert check_of(SPEC, prove_walk(SPEC, st, data)) == "pcs.merge"


@pytest.mark.parametrize(
    ("delta", "check"), [(-1, "statement.range"), (1 << 30, "statement.range")]
)
def test_column_sums_outside_what_w_can_sum_to_are_refused(proofs, delta, check):
    proof = proofs[SHAPES[0]]
    sums = proof.statement.outputs["s00"].copy()
    sums[0] = delta if delta < 0 else sums[0] + delta
    st = dataclasses.replace(proof.statement, outputs={**proof.statement.outputs, "s00": sums})
    assert check_of(SPEC, dataclasses.replace(proof, statement=st)) == check


def test_column_sums_that_could_wrap_are_refused():
    """2^20 rows of 12-bit entries can sum to 2^20·2047 > (p−1)/2."""
    with pytest.raises(ValueError, match="could wrap"):
        range_check.make_statement([np.zeros((1 << 20, 1), dtype=np.int64)], [12])


@pytest.mark.parametrize("cheat", ["sign", "off by one"])
def test_a_committed_magnitude_other_than_abs_w_fails_the_lookup(monkeypatch, cheat):
    """The prover commits −w or |w| + 1 for |w| (and sums it so): the pair is not a row."""
    real = relations.RangeLayout.keys

    def keys(self, weights):
        out = real(self, weights)
        w = pad_tensor(np.asarray(weights[0])).ravel()
        out["a00"] = -w if cheat == "sign" else np.abs(w) + 1
        return out

    monkeypatch.setattr(relations.RangeLayout, "keys", keys)
    st, data = commit_weights(statement(3, 5, 7), POSEIDON_PARAMS)
    assert check_of(SPEC, prove_walk(SPEC, st, data)) == "logup.balance"


def test_a_weight_beyond_2_23_entries_is_refused():
    with pytest.raises(VerificationError) as e:
        relations.RangeLayout.of((12, 1, 2, 1 << 12, 1 << 12))
    assert e.value.check == "range.params"
