"""Positional encoding: exact outputs, honest proofs, every tampered field."""

import dataclasses

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.prover.errors import VerificationError
from cairn.prover.layers.posenc.model import make_statement
from cairn.prover.layers.registry import LAYERS
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import rejections

SPEC = LAYERS["posenc"]
SHAPES = [(1, 1, 1), (3, 3, 2), (3, 10, 5), (4, 4, 4), (5, 64, 7), (16, 17, 3)]


def _prove(s, c, e, seed=0):
    rng = np.random.default_rng(seed)
    return prove_walk(
        SPEC, make_statement(rng.integers(-128, 128, (s, e)), rng.integers(-128, 128, (c, e)))
    )


@pytest.mark.parametrize(("s", "c", "e"), SHAPES)
def test_output_is_exact_and_the_proof_verifies(s, c, e):
    proof = _prove(s, c, e)
    st = proof.statement
    x, p, o = st.inputs["x"], st.weights["p"], st.outputs["o"]
    rows = 1 << (s - 1).bit_length()
    assert np.array_equal(o[:s], x + p[:s])  # the real positions
    padded_p = np.zeros((max(rows, c), e), dtype=np.int64)
    padded_p[:c] = p
    assert np.array_equal(o[s:], padded_p[s:rows])  # padded rows carry P's rows, or zeros
    verify_walk(SPEC, proof)
    assert len(proof.layer.siblings) == (c - 1).bit_length() - (s - 1).bit_length()


def test_every_proof_field_tampered_is_rejected():
    proof = _prove(3, 10, 5, seed=1)
    checks = rejections(SPEC, proof)
    assert {"posenc.sibling_count", "walk.input_claim", "walk.weight_claim"} <= checks.keys()


def test_sibling_count_comes_from_the_statement():
    proof = _prove(3, 10, 5)
    for siblings in (proof.layer.siblings[:-1], [*proof.layer.siblings, proof.layer.x_value]):
        short = dataclasses.replace(
            proof, layer=dataclasses.replace(proof.layer, siblings=siblings)
        )
        with pytest.raises(VerificationError) as e:
            verify_walk(SPEC, short)
        assert e.value.check == "posenc.sibling_count"


def test_bad_statements_are_refused():
    proof = _prove(3, 10, 5)
    st = proof.statement
    bad = [
        dataclasses.replace(st, dims=(11, 10, 5)),
        dataclasses.replace(st, dims=(3, 10)),
        dataclasses.replace(st, inputs={"x": st.inputs["x"][:, :4]}),
        dataclasses.replace(st, outputs={"o": st.outputs["o"][:3]}),
        dataclasses.replace(st, weights={"q": st.weights["p"]}),
    ]
    for statement in bad:
        with pytest.raises(VerificationError) as e:
            verify_walk(SPEC, dataclasses.replace(proof, statement=statement))
        assert e.value.check == "statement.shape"
    with pytest.raises(ValueError, match="s <= c"):
        make_statement(np.zeros((5, 2), dtype=np.int64), np.zeros((4, 2), dtype=np.int64))


def test_cli_round_trip_rejection_and_refusal(tmp_path):
    runner = CliRunner()
    path = tmp_path / "pe.json"
    args = ["prove", "posenc", "--seq", "5", "--context", "12", "--embed", "3", "--out", path]
    assert runner.invoke(app, [str(a) for a in args]).exit_code == 0
    assert runner.invoke(app, ["verify", str(path)]).exit_code == 0
    proof = proof_file.load(path)
    lying = dataclasses.replace(proof, layer=dataclasses.replace(proof.layer, siblings=[]))
    proof_file.save(lying, path)
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 1 and "posenc.sibling_count" in result.output
    result = runner.invoke(app, ["prove", "posenc", "--seq", "9", "--context", "4"])
    assert result.exit_code == 2 and "exceeds" in result.output
    result = runner.invoke(app, ["calldata", str(path)])
    assert result.exit_code == 0 and result.stdout.startswith('["0x3", "0x4", ')  # walk calldata
