"""Layers with committed weights: one PCS batch opening settles every weight claim."""

import dataclasses

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn import examples
from cairn.cli import app
from cairn.prover.errors import VerificationError
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import commitment_file, proof_file
from tests.proof_mutations import mutations


def _prove(statement, hash_="blake2s"):
    committed, data = commit_weights(statement, PARAMS[hash_])
    return prove_walk(LAYERS[statement.kind], committed, data)


@pytest.fixture(scope="module")
def qkv_proof():
    return _prove(examples.qkv_example(3, 5, 2, seed=1))


@pytest.mark.parametrize(
    ("statement", "hash_"),
    [
        (examples.qkv_example(3, 5, 2, 0), "poseidon"),
        (examples.linear_example(3, 5, 6, 0), "blake2s"),
        (examples.posenc_example(3, 9, 4, 0), "blake2s"),
        (examples.decode_example(2, 6, 4, 3, prefill=3, seed=0), "blake2s"),
        (examples.layernorm_example(3, 5, 0), "poseidon"),
    ],
)
def test_committed_weights_verify_and_leave_the_proof(statement, hash_):
    proof = _prove(statement, hash_)
    assert not proof.statement.weights and proof.opening is not None
    assert set(proof.statement.committed) == set(statement.weights)
    verify_walk(LAYERS[statement.kind], proof)


def test_every_tampering_of_the_opening_is_rejected(qkv_proof):
    spec = LAYERS["qkv"]
    checks = set()
    for path, tampered in mutations(qkv_proof.opening, "opening"):
        with pytest.raises(VerificationError) as e:
            verify_walk(spec, dataclasses.replace(qkv_proof, opening=tampered))
        checks.add(e.value.check)
        assert path
    assert {"merkle.path", "pcs.query_count"} <= checks


def test_missing_or_extra_opening_and_a_foreign_commitment(qkv_proof):
    spec = LAYERS["qkv"]
    with pytest.raises(VerificationError) as e:
        verify_walk(spec, dataclasses.replace(qkv_proof, opening=None))
    assert e.value.check == "walk.opening"
    other = _prove(examples.qkv_example(3, 5, 2, seed=2))  # another model's weights
    st = dataclasses.replace(qkv_proof.statement, committed=other.statement.committed)
    with pytest.raises(VerificationError):
        verify_walk(spec, dataclasses.replace(qkv_proof, statement=st))
    ct = qkv_proof.statement.committed["w_q"]
    wrong_size = dataclasses.replace(ct, commitment=dataclasses.replace(ct.commitment, n_vars=1))
    st = dataclasses.replace(
        qkv_proof.statement, committed={**qkv_proof.statement.committed, "w_q": wrong_size}
    )
    with pytest.raises(VerificationError) as e:
        verify_walk(spec, dataclasses.replace(qkv_proof, statement=st))
    assert e.value.check == "statement.shape"


def test_public_proof_with_an_opening_is_rejected(qkv_proof):
    public = prove_walk(LAYERS["qkv"], examples.qkv_example(3, 5, 2, seed=1))
    with pytest.raises(VerificationError) as e:
        verify_walk(LAYERS["qkv"], dataclasses.replace(public, opening=qkv_proof.opening))
    assert e.value.check == "walk.opening"


def test_json_round_trip(qkv_proof, tmp_path):
    path = tmp_path / "q.json"
    proof_file.save(qkv_proof, path)
    back = proof_file.load(path)
    assert back.opening == qkv_proof.opening
    assert back.statement.committed == qkv_proof.statement.committed
    verify_walk(LAYERS["qkv"], back)
    assert np.array_equal(back.statement.inputs["x"], qkv_proof.statement.inputs["x"])


def test_cli_pins_layer_weights_by_name(qkv_proof, tmp_path):
    runner = CliRunner()
    path = tmp_path / "q.json"
    proof_file.save(qkv_proof, path)
    for name in ("w_q", "b_v"):
        commitment_file.save(qkv_proof.statement.committed[name], tmp_path / f"{name}.json")
    pins = [
        "--commitment",
        f"w_q={tmp_path / 'w_q.json'}",
        "--commitment",
        f"b_v={tmp_path / 'b_v.json'}",
    ]
    assert runner.invoke(app, ["verify", str(path), *pins]).exit_code == 0
    for wrong in (
        f"w_k={tmp_path / 'w_q.json'}",
        f"nope={tmp_path / 'w_q.json'}",
        str(tmp_path / "w_q.json"),
    ):
        result = runner.invoke(app, ["verify", str(path), "--commitment", wrong])
        assert result.exit_code == 1 and "commitment.mismatch" in result.output
