"""The residual add: exact outputs, honest proofs, each tampering caught by a named check."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.fields.m31 import HALF
from cairn.prover.layers.add import model
from cairn.prover.layers.add.proof import AddProof
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import evaluate_tensor
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.statement import Statement, absorb_statement, draw_output_claims
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from cairn.serializer.codec import decode, encode
from tests.proof_mutations import check_of, rejections
from tests.test_integer_soundness import refusal, unchecked, wrap
from tests.test_layer_linear import dims_only_claims

SPEC = LAYERS["add"]
SHAPES = [(1, 1), (1, 5), (3, 1), (3, 5), (4, 4), (7, 9), (16, 3)]


def statement(rows, cols, seed=0, lo=-128, hi=128):
    rng = np.random.default_rng(seed)
    return model.make_statement(
        rng.integers(lo, hi, (rows, cols)), rng.integers(lo, hi, (rows, cols))
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_outputs_equal_reference(shape):
    st_ = statement(*shape)
    a, b, y = st_.inputs["a"], st_.inputs["b"], st_.outputs["y"]
    assert y.dtype == np.int64 and y.shape == shape
    want = [[int(a[i, j]) + int(b[i, j]) for j in range(shape[1])] for i in range(shape[0])]
    assert y.tolist() == want


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify(shape):
    proof = prove_walk(SPEC, statement(*shape))
    assert proof.layer.a_value == evaluate_tensor(proof.statement.inputs["a"], _output_point(proof))
    verify_walk(SPEC, proof)


def _output_point(proof):
    """r_out as the walk draws it (the verifier's first challenge after the statement)."""
    channel = Poseidon252Channel()
    absorb_statement(channel, proof.statement)
    return draw_output_claims(channel, proof.statement.outputs)["y"].point


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32))
def test_random_shapes_verify(rows, cols, seed):
    verify_walk(SPEC, prove_walk(SPEC, statement(rows, cols, seed, -(1 << 29), 1 << 29)))


def test_verifier_reads_only_the_dims():
    full, dims_only = dims_only_claims(SPEC, prove_walk(SPEC, statement(3, 5)))
    assert full == dims_only


def test_every_tampering_is_rejected():
    """v_a tampered breaks the claim on a; both settlement dicts tampered by key and proof."""
    hit = rejections(SPEC, prove_walk(SPEC, statement(3, 5, seed=1)))
    assert {"walk.input_claim", "walk.input_claims", "sameply.proof"} <= set(hit)
    assert hit["walk.input_claim"] == "layer.a_value"


def test_v_a_decides_both_claims():
    """Shifting v_a by δ moves the claim on b by −δ: whichever settles first fails."""
    proof = prove_walk(SPEC, statement(4, 6))
    layer = AddProof(proof.layer.a_value + QM31.one())
    assert check_of(SPEC, dataclasses.replace(proof, layer=layer)) == "walk.input_claim"


def test_wrong_output_rejected():
    honest = statement(4, 5)
    y = honest.outputs["y"].copy()
    y[3, 4] += 1
    forged = dataclasses.replace(honest, outputs={"y": y})
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "walk.input_claim"
    carried = dataclasses.replace(prove_walk(SPEC, honest), statement=forged)
    assert check_of(SPEC, carried) == "walk.input_claim"


def _bad_statements():
    st_ = statement(3, 4)
    a, b, y = st_.inputs["a"], st_.inputs["b"], st_.outputs["y"]
    return {
        "dims count": dataclasses.replace(st_, dims=(3, 4, 1)),
        "zero dim": dataclasses.replace(st_, dims=(0, 4)),
        "dims disagree": dataclasses.replace(st_, dims=(3, 5)),
        "b shape": dataclasses.replace(st_, inputs={"a": a, "b": b[:2]}),
        "b missing": dataclasses.replace(st_, inputs={"a": a}),
        "output shape": dataclasses.replace(st_, outputs={"y": y[:, :3]}),
        "output renamed": dataclasses.replace(st_, outputs={"o": y}),
        "a weight": dataclasses.replace(st_, weights={"w": a}),
    }


@pytest.mark.parametrize("case", list(_bad_statements()))
def test_bad_statements_refused(case):
    honest = prove_walk(SPEC, statement(3, 4))
    bad = _bad_statements()[case]
    with pytest.raises(VerificationError, match="statement.shape"):
        verify_walk(SPEC, dataclasses.replace(honest, statement=bad))
    with pytest.raises(VerificationError, match="statement.shape"):
        prove_walk(SPEC, bad)


def test_make_statement_refuses_bad_operands():
    with pytest.raises(ValueError, match="one shape"):
        model.make_statement(np.zeros((3, 4)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="rows × cols"):
        model.make_statement(np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError):
        model.make_statement(np.full((1, 1), HALF), np.ones((1, 1)))


def add_1x1(a: int, b: int) -> Statement:
    """y = a + b computed mod p: exact inside the bound, wrapped outside."""
    a_, b_ = np.array([[a]]), np.array([[b]])
    return Statement(model.KIND, (1, 1), {"a": a_, "b": b_}, {"y": wrap(a_ + b_)}, {})


@pytest.mark.parametrize(
    ("inside", "outside"),
    [((HALF - 5, 5), (HALF - 5, 6)), ((-HALF, 0), (-HALF, -1)), ((-7, HALF - 7), (-7, HALF))],
)
def test_range_bound_on_both_sides(inside, outside):
    st_ = add_1x1(*inside)
    assert st_.outputs["y"].tolist() == [[sum(inside)]]
    verify_walk(SPEC, prove_walk(SPEC, st_))
    wrapped = add_1x1(*outside)
    proof = prove_walk(unchecked(model.KIND), wrapped)
    verify_walk(unchecked(model.KIND), proof)  # valid mod p: only the range check stops it
    assert "a + b" in refusal(SPEC, proof)
    with pytest.raises(VerificationError, match="statement.range"):
        prove_walk(SPEC, wrapped)


def test_the_relation_bounds_y_monotonically():
    (rel,) = model.RELATIONS
    assert rel.result == "y" and set(rel.operands) == {"a", "b"}
    st_ = statement(5, 6, seed=3)
    bound = rel.bound(st_.inputs, st_.dims)
    assert np.abs(st_.outputs["y"]).max() <= bound
    at_max = {n: np.full_like(t, np.abs(t).max()) for n, t in st_.inputs.items()}
    assert rel.bound(at_max, st_.dims) >= bound


def test_unbounded_operand_skips_the_relation():
    """In a model walk a hidden operand has no known bound: the check skips, not refuses."""
    wrapped = add_1x1(HALF, 1)
    proof = prove_walk(unchecked(model.KIND), wrapped)
    hidden = dataclasses.replace(wrapped, unbounded=frozenset({"b"}))
    verify_walk(SPEC, dataclasses.replace(proof, statement=hidden))


def test_proof_round_trips_through_json(tmp_path):
    proof = prove_walk(SPEC, statement(3, 5))
    assert decode(encode(proof.layer), AddProof, "proof") == proof.layer
    path = tmp_path / "add.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.layer == proof.layer and back.inputs == proof.inputs
    verify_walk(SPEC, back)
