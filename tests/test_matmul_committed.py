"""Matmul with B bound by a PCS commitment: honest proofs, every tampering, pinning, files."""

import dataclasses

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.errors import VerificationError
from cairn.prover.matmul.instance import NO_MODEL, UNBOUND, WeightBinding
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.matmul.verifier import verify_matmul
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.serializer import calldata, proof_file
from cairn.serializer.errors import MalformedProofError
from tests.proof_mutations import mutations

BINDING = WeightBinding(model_id=0x7, weight=1, config_hash=0xC0FFEE)


def _proof(m, k, n, hash_, seed=0, binding=BINDING):
    rng = np.random.default_rng(seed)
    inst = make_instance(rng.integers(-128, 128, (m, k)), rng.integers(-128, 128, (k, n)))
    _, data = commit_tensor(inst.b, PARAMS[hash_])
    return inst, prove_matmul(inst, data, binding)


@pytest.fixture(scope="module")
def proof():
    return _proof(3, 5, 2, "poseidon")[1]


def _rebound(proof, **changes):
    binding = dataclasses.replace(proof.instance.binding, **changes)
    return dataclasses.replace(proof, instance=dataclasses.replace(proof.instance, binding=binding))


@pytest.mark.parametrize(
    "changes",
    [{"model_id": 0x8}, {"weight": 0}, {"config_hash": 0xC0FFEF}, {"model_id": 0, "weight": 0}],
)
def test_the_binding_is_in_the_transcript(proof, changes):
    """Model id, weight index and config hash are absorbed before any challenge: the same body
    presented as another model's (same root) or another weight is refused."""
    with pytest.raises(VerificationError) as e:
        verify_matmul(_rebound(proof, **changes))
    assert e.value.check == "matmul.final_evaluation"


def test_a_binding_is_felts(proof):
    with pytest.raises(VerificationError) as e:
        verify_matmul(_rebound(proof, model_id=STARK_PRIME))
    assert e.value.check == "instance.binding"
    with pytest.raises(ValueError, match="committed B"):
        inst = make_instance(np.ones((1, 1), dtype=np.int64), np.ones((1, 1), dtype=np.int64))
        prove_matmul(inst, None, BINDING)


def test_an_unbound_proof_verifies_off_chain_only():
    _, unbound = _proof(2, 4, 2, "poseidon", binding=UNBOUND)
    verify_matmul(unbound)
    assert unbound.instance.binding.model_id == NO_MODEL


@pytest.mark.parametrize(
    ("shape", "hash_"), [((3, 5, 2), "blake2s"), ((1, 1, 1), "poseidon"), ((4, 32, 16), "blake2s")]
)
def test_honest_committed_proofs_verify_and_hide_b(shape, hash_):
    inst, proof = _proof(*shape, hash_)
    assert proof.instance.b is None and proof.instance.b_commitment.hash == hash_
    verify_matmul(proof)
    assert np.array_equal(proof.instance.c, inst.a @ inst.b)


def test_every_tampering_of_the_committed_parts_is_rejected(proof):
    checks = set()
    for part in ("b_value", "opening"):
        for path, tampered in mutations(getattr(proof, part), part):
            with pytest.raises(VerificationError) as e:
                verify_matmul(dataclasses.replace(proof, **{part: tampered}))
            checks.add(e.value.check)
            assert path
    assert {"matmul.final_evaluation", "merkle.path", "pcs.query_count"} <= checks


def test_commitment_and_missing_opening(proof):
    cw = proof.instance.b_commitment
    # Another root is absorbed before r_row and r_col, so the sum-check already ends wrong;
    # another size no longer fits B's shape.
    for changed, check in (
        (dataclasses.replace(cw, root=cw.root + 1), "matmul.final_evaluation"),
        (dataclasses.replace(cw, n_vars=cw.n_vars + 1), "instance.shape"),
    ):
        with pytest.raises(VerificationError) as e:
            verify_matmul(
                dataclasses.replace(
                    proof, instance=dataclasses.replace(proof.instance, b_commitment=changed)
                )
            )
        assert e.value.check == check
    with pytest.raises(VerificationError) as e:
        verify_matmul(dataclasses.replace(proof, opening=None))
    assert e.value.check == "matmul.opening"


def test_a_proof_against_another_weight_fails():
    """Same A and C shape, but the prover commits to a different B than the one that gives C."""
    rng = np.random.default_rng(5)
    inst = make_instance(rng.integers(-9, 9, (2, 4)), rng.integers(-9, 9, (4, 2)))
    _, other = commit_tensor(inst.b + 1, PARAMS["blake2s"])
    lying = prove_matmul(dataclasses.replace(inst, b=inst.b + 1, c=inst.c), other)
    with pytest.raises(VerificationError):
        verify_matmul(lying)


def test_json_round_trip(proof, tmp_path):
    path = tmp_path / "cw.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.opening == proof.opening and back.b_value == proof.b_value
    assert back.instance.b_commitment == proof.instance.b_commitment and back.instance.b is None
    assert back.instance.binding == BINDING
    verify_matmul(back)


def test_cli_commit_prove_verify_and_pin(tmp_path):
    runner = CliRunner()
    w = tmp_path / "W.npy"
    np.save(w, np.random.default_rng(1).integers(-128, 128, (16, 8)))
    assert runner.invoke(app, ["commit", str(w), "--hash", "blake2s"]).exit_code == 0
    pinned = tmp_path / "W.commit.json"
    proof = tmp_path / "p.json"
    args = [
        "prove",
        "matmul",
        "--m",
        "3",
        "--k",
        "16",
        "--n",
        "8",
        "--b",
        str(w),
        "--commit-b",
        "blake2s",
        "--out",
        str(proof),
    ]
    assert runner.invoke(app, args).exit_code == 0
    result = runner.invoke(app, ["verify", str(proof), "--commitment", str(pinned)])
    assert result.exit_code == 0 and "B committed (blake2s)" in result.output
    assert (
        runner.invoke(
            app, ["commit", str(w), "--hash", "poseidon", "--out", str(tmp_path / "P.json")]
        ).exit_code
        == 0
    )
    result = runner.invoke(app, ["verify", str(proof), "--commitment", str(tmp_path / "P.json")])
    assert result.exit_code == 1 and "commitment.mismatch" in result.output
    pinned.write_text(
        '{"format": "cairn-commitment", "version": 1, "shape": [16], "commitment": {}}'
    )
    result = runner.invoke(app, ["verify", str(proof), "--commitment", str(pinned)])
    assert result.exit_code == 2 and "malformed" in result.output
    result = runner.invoke(app, ["commit", str(tmp_path / "missing.npy")])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d["instance"]["b_commitment"].update(n_vars=2**200), "n_vars"),
        (lambda d: d["instance"]["b_commitment"].update(root=2**252), "root"),
        (lambda d: d["instance"]["b_commitment"].update(hash="sha3"), "hash"),
        (lambda d: d["instance"].update(b=[[1, 2], [3, 4]]), "instance.b"),
        (lambda d: d["instance"]["binding"].update(model_id=STARK_PRIME), "model_id"),
        (lambda d: d["instance"]["binding"].pop("config_hash"), "config_hash"),
        (lambda d: d["instance"].pop("binding"), "binding"),
    ],
)
def test_malformed_commitments_are_refused_on_load(proof, edit, field):
    doc = proof_file.to_json_dict(proof)
    edit(doc)
    with pytest.raises(MalformedProofError) as e:
        proof_file.from_json_dict(doc)
    assert e.value.field.endswith(field)


def test_encoding_a_proof_with_missing_openings_is_a_clear_error(proof):
    short = dataclasses.replace(proof.opening, poly_openings=[])
    with pytest.raises(ValueError, match="polynomial openings"):
        calldata.encode(dataclasses.replace(proof, opening=short))


def test_cli_binds_a_proof_to_a_registered_weight(tmp_path):
    """`--model-id/--weight/--config-hash` go into the proof (and its transcript); a committed
    proof bound to no model has no calldata."""
    runner = CliRunner()
    args = ["prove", "matmul", "--m", "2", "--k", "4", "--n", "4", "--commit-b", "poseidon"]
    bound, unbound = tmp_path / "bound.json", tmp_path / "unbound.json"
    binding = ["--model-id", "0x7", "--weight", "1", "--config-hash", "0xc0ffee"]
    assert runner.invoke(app, [*args, *binding, "--out", str(bound)]).exit_code == 0
    assert proof_file.load(bound).instance.binding == BINDING
    result = runner.invoke(app, ["inspect", str(bound)])
    assert "weight 1 of model 0x7 (config 0xc0ffee)" in result.output
    felts = runner.invoke(app, ["calldata", str(bound)])
    assert felts.exit_code == 0 and '["0x2", "0x3", "0x7", "0x1", "0xc0ffee"' in felts.output
    assert runner.invoke(app, [*args, "--out", str(unbound)]).exit_code == 0
    result = runner.invoke(app, ["calldata", str(unbound)])
    assert result.exit_code == 2 and "--model-id" in result.output
    result = runner.invoke(app, ["prove", "matmul", "--model-id", "0x7"])
    assert result.exit_code == 2 and "--commit-b" in result.output
