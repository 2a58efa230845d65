"""The linear layer: exact outputs, honest proofs, each tampering caught by a named check."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn import examples
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.fields.m31 import HALF
from cairn.prover.layers.linear import model
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.ranges import mod_p_only
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import Statement, absorb_statement, draw_output_claims
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from cairn.serializer.codec import decode, encode
from tests.proof_mutations import check_of, rejections
from tests.test_integer_soundness import refusal, unchecked, wrap

SPEC = LAYERS["linear"]
SHAPES = [(1, 1, 1), (1, 3, 2), (2, 1, 5), (3, 5, 2), (5, 3, 7), (4, 8, 4), (7, 9, 6), (16, 12, 3)]


def statement(s, e, h, seed=0, lo=-128, hi=128):
    rng = np.random.default_rng(seed)
    weights = {"w": rng.integers(lo, hi, (e, h)), "b": rng.integers(lo, hi, (h,))}
    return model.make_statement(rng.integers(lo, hi, (s, e)), weights)


def reference(x, w, b):
    """Y by plain Python integers, entry by entry."""
    return np.array(
        [
            [
                sum(int(xi) * int(wi) for xi, wi in zip(row, col)) + int(bc)
                for col, bc in zip(w.T, b)
            ]
            for row in x
        ]
    )


def dims_only_claims(spec: LayerSpec, proof: WalkProof):
    """The layer verifier's claims, run once on the statement and once on its dims alone: a
    model walk hands it hidden tensors, so it must read nothing but the dims."""
    full = proof.statement
    runs = []
    for given_st in (full, Statement(full.kind, full.dims, {}, {}, {})):
        channel = Poseidon252Channel()
        absorb_statement(channel, full)
        outputs = draw_output_claims(channel, full.outputs)
        runs.append(spec.verify(given_st, proof.layer, outputs, channel))
    return runs


@pytest.mark.parametrize("shape", SHAPES)
def test_outputs_equal_reference(shape):
    st_ = statement(*shape)
    assert set(st_.outputs) == {"y"} and st_.outputs["y"].dtype == np.int64
    want = reference(st_.inputs["x"], st_.weights["w"], st_.weights["b"])
    np.testing.assert_array_equal(st_.outputs["y"], want)


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify(shape):
    proof = prove_walk(SPEC, statement(*shape))
    assert len(proof.layer.sumcheck.rounds) == (shape[1] - 1).bit_length()
    assert (len(proof.layer.bias), len(proof.layer.x), len(proof.layer.w)) == (1, 1, 1)
    verify_walk(SPEC, proof)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32))
def test_random_shapes_verify(s, e, h, seed):
    verify_walk(SPEC, prove_walk(SPEC, statement(s, e, h, seed)))


def test_large_entries_verify():
    st_ = statement(5, 6, 3, seed=5, lo=-(1 << 12), hi=1 << 12)
    want = reference(st_.inputs["x"], st_.weights["w"], st_.weights["b"])
    np.testing.assert_array_equal(st_.outputs["y"], want)
    verify_walk(SPEC, prove_walk(SPEC, st_))


def test_is_one_projection_of_qkv():
    """linear with (w_j, b_j) proves qkv's output j: the same relation, one projection."""
    qkv = examples.qkv_example(3, 5, 2, seed=4)
    for j in "qkv":
        weights = {"w": qkv.weights[f"w_{j}"], "b": qkv.weights[f"b_{j}"]}
        np.testing.assert_array_equal(
            model.make_statement(qkv.inputs["x"], weights).outputs["y"], qkv.outputs[j]
        )


def test_verifier_reads_only_the_dims():
    full, dims_only = dims_only_claims(SPEC, prove_walk(SPEC, statement(3, 5, 3)))
    assert full == dims_only


def test_every_tampering_is_rejected():
    """Every QM31 of the layer and settlement proofs, every count, every optional proof."""
    hit = rejections(SPEC, prove_walk(SPEC, statement(3, 5, 3, seed=1)))
    assert {
        "linear.value_count",
        "linear.final_evaluation",
        "sumcheck.round_count",
        "sumcheck.round_degree",
        "sameply.proof",
        "walk.input_claims",
        "walk.weight_claims",
    } <= set(hit)


@pytest.mark.parametrize(
    ("field", "mutate", "check"),
    [
        ("bias", lambda v: [], "linear.value_count"),
        ("x", lambda v: [*v, v[0]], "linear.value_count"),
        ("w", lambda v: [*v, v[0]], "linear.value_count"),
        ("bias", lambda v: [v[0] + QM31.one()], "linear.final_evaluation"),
        ("x", lambda v: [v[0] + QM31.one()], "linear.final_evaluation"),
        ("w", lambda v: [v[0] + QM31.one()], "linear.final_evaluation"),
    ],
)
def test_named_checks(field, mutate, check):
    proof = prove_walk(SPEC, statement(5, 6, 3))
    layer = dataclasses.replace(proof.layer, **{field: mutate(getattr(proof.layer, field))})
    assert check_of(SPEC, dataclasses.replace(proof, layer=layer)) == check


def test_wrong_output_rejected():
    honest = statement(4, 5, 3)
    y = honest.outputs["y"].copy()
    y[3, 2] += 1
    forged = dataclasses.replace(honest, outputs={"y": y})
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "linear.final_evaluation"
    carried = dataclasses.replace(prove_walk(SPEC, honest), statement=forged)
    assert check_of(SPEC, carried) is not None


def _bad_statements():
    st_ = statement(3, 4, 2)
    x, ws, y = st_.inputs["x"], st_.weights, st_.outputs["y"]
    return {
        "dims count": dataclasses.replace(st_, dims=(3, 4)),
        "zero dim": dataclasses.replace(st_, dims=(3, 0, 2)),
        "dims disagree": dataclasses.replace(st_, dims=(3, 4, 3)),
        "x shape": dataclasses.replace(st_, inputs={"x": x[:, :3]}),
        "x renamed": dataclasses.replace(st_, inputs={"a": x}),
        "output rows": dataclasses.replace(st_, outputs={"y": y[:2]}),
        "output renamed": dataclasses.replace(st_, outputs={"q": y}),
        "bias 2-D": dataclasses.replace(st_, weights={**ws, "b": ws["b"][None]}),
        "weight shape": dataclasses.replace(st_, weights={**ws, "w": ws["w"][:3]}),
        "extra weight": dataclasses.replace(st_, weights={**ws, "w_o": ws["w"]}),
    }


@pytest.mark.parametrize("case", list(_bad_statements()))
def test_bad_statements_refused(case):
    honest = prove_walk(SPEC, statement(3, 4, 2))
    bad = _bad_statements()[case]
    with pytest.raises(VerificationError, match="statement.shape"):
        verify_walk(SPEC, dataclasses.replace(honest, statement=bad))
    with pytest.raises(VerificationError, match="statement.shape"):
        prove_walk(SPEC, bad)


def test_make_statement_refuses_bad_operands():
    rng = np.random.default_rng(0)
    ws = {"w": rng.integers(0, 9, (4, 2)), "b": rng.integers(0, 9, (2,))}
    with pytest.raises(ValueError, match="shapes"):
        model.make_statement(rng.integers(0, 9, (3, 5)), ws)  # e mismatch
    with pytest.raises(ValueError, match="need w"):
        model.make_statement(rng.integers(0, 9, (3, 4)), {"w_q": ws["w"], "b": ws["b"]})
    with pytest.raises(ValueError, match="s × e"):
        model.make_statement(rng.integers(0, 9, (4,)), ws)
    with pytest.raises(ValueError, match="product entry"):
        model.make_statement(np.full((3, 4), 1 << 22), {**ws, "w": np.full((4, 2), 127)})


def linear_1x1(x: int, w: int, b: int) -> Statement:
    """y = x·w + b computed mod p: exact inside the bound, wrapped outside."""
    xs, ws = np.array([[x]]), {"w": np.array([[w]]), "b": np.array([b])}
    return Statement(model.KIND, (1, 1, 1), {"x": xs}, {"y": wrap(xs @ ws["w"] + ws["b"])}, ws)


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        ((32767, 32769, 0), (32768, 32768, 0)),
        ((32767, 32768, 32767), (32767, 32768, 32768)),
        ((-32767, 32769, 0), (-32768, 32768, 0)),
        ((1, HALF - 1, 1), (1, HALF, 1)),
    ],
)
def test_range_bound_on_both_sides(inside, outside):
    st_ = linear_1x1(*inside)
    exact = model.make_statement(st_.inputs["x"], st_.weights)
    np.testing.assert_array_equal(st_.outputs["y"], exact.outputs["y"])
    verify_walk(SPEC, prove_walk(SPEC, st_))
    wrapped = linear_1x1(*outside)
    proof = prove_walk(unchecked(model.KIND), wrapped)
    verify_walk(unchecked(model.KIND), proof)  # valid mod p: only the range check stops it
    assert "x·w + b" in refusal(SPEC, proof)
    with pytest.raises(VerificationError, match="statement.range"):
        prove_walk(SPEC, wrapped)


def test_the_relation_bounds_y_monotonically():
    """What a model walk relies on: the relation names y, its bound bounds y, and reading
    every operand entry at its largest magnitude only raises the bound."""
    (rel,) = model.RELATIONS
    assert rel.result == "y" and set(rel.operands) == {"x", "w", "b"}
    st_ = statement(6, 7, 5, seed=2)
    tensors = {**st_.inputs, **st_.weights}
    bound = rel.bound(tensors, st_.dims)
    assert np.abs(st_.outputs["y"]).max() <= bound
    at_max = {n: np.full_like(t, np.abs(t).max()) for n, t in tensors.items()}
    assert rel.bound(at_max, st_.dims) >= bound


def test_unbounded_or_committed_operands_are_mod_p_only():
    """A hidden x (model walk) or committed w skips the relation instead of refusing."""
    wrapped = linear_1x1(46341, 46341, 0)
    proof = prove_walk(unchecked(model.KIND), wrapped)
    hidden = dataclasses.replace(wrapped, unbounded=frozenset({"x"}))
    verify_walk(SPEC, dataclasses.replace(proof, statement=hidden))
    committed, data = commit_weights(wrapped, PARAMS["blake2s"])
    verify_walk(SPEC, prove_walk(SPEC, committed, data))
    assert mod_p_only(model.RELATIONS, committed.committed) == ["x·w + b"]


def test_proof_round_trips_through_json(tmp_path):
    proof = prove_walk(SPEC, statement(3, 5, 3))
    assert decode(encode(proof.layer), ProjectionProof, "proof") == proof.layer
    path = tmp_path / "linear.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.layer == proof.layer and back.inputs == proof.inputs
    np.testing.assert_array_equal(back.statement.outputs["y"], proof.statement.outputs["y"])
    verify_walk(SPEC, back)
