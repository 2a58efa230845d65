"""Sum pooling: exact outputs, honest proofs, every tampering, refused statements."""

import dataclasses

import numpy as np
import pytest

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.pool import model as pool
from cairn.prover.layers.pool.prover import HALF_POINT
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import evaluate, evaluate_tensor
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.statement import Statement, absorb_statement, draw_output_claims
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import rejections
from tests.test_integer_soundness import forge, refusal, unchecked, wrap

SPEC = LAYERS["pool"]
SHAPES = [(1, 1), (1, 5), (3, 5), (8, 4), (9, 3), (16, 1), (128, 7)]


def _x(s, d, seed=0):
    return np.random.default_rng(seed).integers(-128, 128, (s, d))


def _reject(proof, check):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, proof)
    assert e.value.check == check, e.value.detail


@pytest.mark.parametrize(("s", "d"), SHAPES)
def test_output_is_exact_and_the_proof_verifies(s, d):
    x = _x(s, d)
    st = pool.make_statement(x)
    reference = [sum(int(x[i][c]) for i in range(s)) for c in range(d)]
    assert st.outputs["y"].tolist() == reference and st.dims == (s, d)
    proof = prove_walk(SPEC, st)
    verify_walk(SPEC, proof)
    (claim,) = proof_claims(st)
    assert claim.point[: (s - 1).bit_length()] == (HALF_POINT,) * (s - 1).bit_length()


def proof_claims(st):
    """The layer's claims on x, replayed on a fresh transcript."""
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    outputs = draw_output_claims(channel, st.outputs)
    return SPEC.verify(st, SPEC.proof_type(), outputs, channel).inputs["x"]


def test_half_point_is_the_mean_of_the_hypercube():
    """f(½, …, ½) = 2^−k Σ_b f(b) for the MLE of any table of 2^k values."""
    rng = np.random.default_rng(5)
    for k in range(5):
        values = rng.integers(0, (1 << 31) - 1, 1 << k)
        mean = evaluate(values, (HALF_POINT,) * k) * QM31.from_int(1 << k)
        assert mean == QM31.from_int(int(values.sum()))


def test_every_tampering_is_rejected():
    proof = prove_walk(SPEC, pool.make_statement(_x(5, 3, seed=1)))
    assert {"sameply.proof", "walk.input_claims"} <= rejections(SPEC, proof).keys()


def test_a_false_output_is_rejected():
    st = pool.make_statement(_x(5, 3))
    y = st.outputs["y"].copy()
    y[1] += 1
    _reject(prove_walk(SPEC, dataclasses.replace(st, outputs={"y": y})), "walk.input_claim")
    x = st.inputs["x"].copy()
    x[4, 2] -= 1  # one token changed: the sum no longer matches
    _reject(prove_walk(SPEC, dataclasses.replace(st, inputs={"x": x})), "walk.input_claim")


def test_the_layer_verifier_reads_neither_x_nor_y():
    """Hidden in a model walk: the same claims on a statement whose tensors are zeros."""
    st = pool.make_statement(_x(6, 4))
    blind = dataclasses.replace(
        st, inputs={"x": np.zeros((6, 4), dtype=np.int64)}, outputs={"y": np.zeros(4, np.int64)}
    )
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    outputs = draw_output_claims(channel, st.outputs)
    claims = SPEC.verify(blind, SPEC.proof_type(), outputs, channel)
    assert claims == SPEC.verify(st, SPEC.proof_type(), outputs, channel)
    (claim,) = claims.inputs["x"]
    assert evaluate_tensor(st.inputs["x"], claim.point) == claim.value


def test_bad_statements_are_refused():
    st = pool.make_statement(_x(3, 5))
    proof = prove_walk(SPEC, st)
    bad = [
        dataclasses.replace(st, dims=(3,)),
        dataclasses.replace(st, dims=(3, 5, 1)),
        dataclasses.replace(st, dims=(4, 5)),
        dataclasses.replace(st, dims=(0, 5)),
        dataclasses.replace(st, inputs={"x": st.inputs["x"][:, :4]}),
        dataclasses.replace(st, outputs={"y": st.outputs["y"][None]}),
        dataclasses.replace(st, weights={"w": st.inputs["x"]}),
    ]
    for statement in bad:
        _reject(dataclasses.replace(proof, statement=statement), "statement.shape")
    for x in (np.zeros(3), np.zeros((0, 3))):
        with pytest.raises(ValueError, match="s×d"):
            pool.make_statement(x)


def _wrapped(*column: int) -> Statement:
    x = np.array(column).reshape(-1, 1)
    return Statement(pool.KIND, x.shape, {"x": x}, {"y": wrap(x.sum(axis=0))}, {})


@pytest.mark.parametrize(
    ("inside", "outside"),
    [((HALF - 5, 5), (HALF - 5, 6)), ((-HALF, 0, 0), (-HALF, 1, -1)), ((7,), (HALF, HALF))],
)
def test_wrapped_statement_is_refused(inside, outside, monkeypatch):
    verify_walk(SPEC, prove_walk(SPEC, _wrapped(*inside)))
    st = _wrapped(*outside)
    proof = forge(st, monkeypatch)
    verify_walk(unchecked(pool.KIND), proof)  # a valid proof mod p: only the range check stops it
    assert "y = Σ_i x[i]" in refusal(SPEC, proof)
    SPEC.check(dataclasses.replace(st, unbounded=frozenset({"x"})))  # no bound known: mod p only


def test_relation_bounds_y():
    st = pool.make_statement(_x(9, 4))
    (rel,) = pool.RELATIONS
    bound = rel.bound(st.inputs, st.dims)
    assert rel.result == "y" and np.abs(st.outputs["y"]).max() <= bound <= 9 * 128


def test_json_round_trip(tmp_path):
    proof = prove_walk(SPEC, pool.make_statement(_x(5, 3)))
    path = tmp_path / "pool.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.layer == proof.layer and back.statement.dims == (5, 3)
    assert np.array_equal(back.statement.inputs["x"], proof.statement.inputs["x"])
    verify_walk(SPEC, back)
