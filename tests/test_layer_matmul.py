"""The matmul layer: exact outputs, honest proofs, each tampering caught by a named check."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cairn.cli import app
from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.layers.matmul import model
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.ranges import mod_p_only
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import check_of, rejections
from tests.test_integer_soundness import refusal, unchecked, wrap
from tests.test_layer_linear import dims_only_claims

SPEC = LAYERS["matmul"]
SHAPES = [(1, 1, 1), (3, 5, 2), (4, 1, 3), (1, 7, 1), (8, 8, 8), (17, 33, 9), (64, 128, 32)]


def statement(m, k, n, seed=0, lo=-128, hi=128):
    rng = np.random.default_rng(seed)
    return model.make_statement(rng.integers(lo, hi, (m, k)), rng.integers(lo, hi, (k, n)))


def product(a: list[list[int]], b: list[list[int]]) -> Statement:
    """c = a·b computed mod p and read back signed: exact inside the bound, wrapped outside."""
    a_, b_ = np.array(a), np.array(b)
    return Statement(
        model.KIND, (*a_.shape, b_.shape[1]), {"a": a_}, {"c": wrap(a_ @ b_)}, {"b": b_}
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify(shape):
    st_ = statement(*shape)
    a, b = st_.inputs["a"], st_.weights["b"]
    want = [[sum(int(x) * int(y) for x, y in zip(row, col)) for col in b.T] for row in a]
    np.testing.assert_array_equal(st_.outputs["c"], want)
    proof = prove_walk(SPEC, st_)
    assert len(proof.layer.sumcheck.rounds) == (shape[1] - 1).bit_length()
    assert (len(proof.layer.bias), len(proof.layer.x), len(proof.layer.w)) == (0, 1, 1)
    verify_walk(SPEC, proof)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32))
def test_random_shapes_verify(m, k, n, seed):
    verify_walk(SPEC, prove_walk(SPEC, statement(m, k, n, seed)))


def test_verifier_reads_only_the_dims():
    full, dims_only = dims_only_claims(SPEC, prove_walk(SPEC, statement(3, 5, 3)))
    assert full == dims_only


def test_every_tampering_is_rejected():
    hit = rejections(SPEC, prove_walk(SPEC, statement(3, 5, 3, seed=1)))
    assert {
        "matmul.value_count",
        "matmul.final_evaluation",
        "sumcheck.round_count",
        "sameply.proof",
        "walk.input_claims",
        "walk.weight_claims",
    } <= set(hit)


@pytest.mark.parametrize(
    ("field", "mutate", "check"),
    [
        ("bias", lambda v: [QM31.one()], "matmul.value_count"),
        ("x", lambda v: [*v, v[0]], "matmul.value_count"),
        ("w", lambda v: [v[0] + QM31.one()], "matmul.final_evaluation"),
        ("x", lambda v: [v[0] + QM31.one()], "matmul.final_evaluation"),
    ],
)
def test_named_checks(field, mutate, check):
    proof = prove_walk(SPEC, statement(5, 6, 3))
    layer = dataclasses.replace(proof.layer, **{field: mutate(getattr(proof.layer, field))})
    assert check_of(SPEC, dataclasses.replace(proof, layer=layer)) == check


@pytest.mark.parametrize("group", ["inputs", "weights", "outputs"])
def test_a_wrong_entry_is_caught(group):
    """One entry of a, b or c off by one, whether carried into an honest proof or proved
    from scratch by a lying prover."""
    honest = statement(5, 6, 3)
    (name, t), *_ = getattr(honest, group).items()
    t = t.copy()
    t.flat[7] += 1
    forged = dataclasses.replace(honest, **{group: {**getattr(honest, group), name: t}})
    assert check_of(SPEC, dataclasses.replace(prove_walk(SPEC, honest), statement=forged))
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "matmul.final_evaluation"


@pytest.mark.parametrize("dims", [(5, 6), (5, 6, 4), (5, 0, 3)])
def test_bad_dims_refused(dims):
    honest = prove_walk(SPEC, statement(5, 6, 3))
    bad = dataclasses.replace(honest, statement=dataclasses.replace(honest.statement, dims=dims))
    with pytest.raises(VerificationError, match="statement.shape"):
        verify_walk(SPEC, bad)


def test_make_statement_refuses_bad_operands():
    with pytest.raises(ValueError, match="cannot multiply"):
        model.make_statement(np.ones((2, 3), dtype=np.int64), np.ones((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="signed M31"):
        model.make_statement(np.full((1, 2), 1 << 30), np.ones((2, 1), dtype=np.int64))


def test_the_wrapped_product_is_refused():
    """46341·46341 = 4634 mod p: a valid proof mod p, refused by the no-wrap bound alone."""
    wrapped = product([[46341]], [[46341]])
    proof = prove_walk(unchecked(model.KIND), wrapped)
    verify_walk(unchecked(model.KIND), proof)
    assert "a·b" in refusal(SPEC, proof)
    with pytest.raises(VerificationError, match="statement.range"):
        prove_walk(SPEC, wrapped)
    verify_walk(SPEC, prove_walk(SPEC, product([[32767]], [[32769]])))  # (p−1)/2 fits


def test_committed_b_hides_it_and_holds_mod_p_only():
    wrapped = product([[46341]], [[46341]])
    committed, data = commit_weights(wrapped, PARAMS["blake2s"])
    proof = prove_walk(SPEC, committed, data)
    assert not proof.statement.weights and set(proof.statement.committed) == {"b"}
    verify_walk(SPEC, proof)
    assert mod_p_only(model.RELATIONS, committed.committed) == ["a·b"]


def test_a_proof_against_another_weight_fails():
    """The prover commits to a B other than the one that gives C."""
    honest = statement(2, 4, 2, seed=5, lo=-9, hi=9)
    other = dataclasses.replace(honest, weights={"b": honest.weights["b"] + 1})
    committed, data = commit_weights(other, PARAMS["poseidon"])
    lying = prove_walk(SPEC, dataclasses.replace(committed, outputs=honest.outputs), data)
    assert check_of(SPEC, lying) == "matmul.final_evaluation"


def test_cli_proves_matmul_from_files_and_pins_b(tmp_path):
    """`prove matmul --a --b --commit-b`, then `verify --commitment` with B's commitment file
    (the weight is `b`); another commitment is refused."""
    runner = CliRunner()
    rng = np.random.default_rng(1)
    a, b = tmp_path / "A.npy", tmp_path / "B.npy"
    np.save(a, rng.integers(-128, 128, (3, 16)))
    np.save(b, rng.integers(-128, 128, (16, 8)))
    assert runner.invoke(app, ["commit", str(b), "--hash", "blake2s"]).exit_code == 0
    proof = tmp_path / "p.json"
    args = ["prove", "matmul", "--a", str(a), "--b", str(b), "--commit-b", "blake2s"]
    assert runner.invoke(app, [*args, "--out", str(proof)]).exit_code == 0
    result = runner.invoke(
        app, ["verify", str(proof), "--commitment", str(tmp_path / "B.commit.json")]
    )
    assert result.exit_code == 0 and "matmul m=3 k=16 n=8, committed b (blake2s)" in result.output
    other = tmp_path / "P.json"
    assert runner.invoke(app, ["commit", str(b), "--out", str(other)]).exit_code == 0
    result = runner.invoke(app, ["verify", str(proof), "--commitment", str(other)])
    assert result.exit_code == 1 and "commitment.mismatch" in result.output


def test_cli_binds_b_to_a_registered_weight(tmp_path):
    """`--model-id/--weight/--config-hash` bind the committed B as that weight of the model."""
    runner = CliRunner()
    path = tmp_path / "bound.json"
    args = ["prove", "matmul", "--m", "2", "--k", "4", "--n", "4", "--commit-b", "poseidon"]
    binding = ["--model-id", "0x7", "--weight", "1", "--config-hash", "0xc0ffee"]
    assert runner.invoke(app, [*args, *binding, "--out", str(path)]).exit_code == 0
    assert proof_file.load(path).statement.binding == ModelBinding(0x7, 0xC0FFEE, {"b": 1})
    result = runner.invoke(app, ["inspect", str(path)])
    assert "model 0x7 (config 0xc0ffee): b = weight 1" in result.output
    result = runner.invoke(app, ["prove", "matmul", "--model-id", "0x7"])
    assert result.exit_code == 2 and "--commit-weights" in result.output
