"""Proof files: round trips, and every malformed input named (calldata: test_walk_calldata.py
and test_pcs_calldata.py)."""

import json

import numpy as np
import pytest

from cairn import examples
from cairn.prover.fields import P
from cairn.prover.layers.registry import LAYERS
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.files import write_together

SPEC = LAYERS["matmul"]


@pytest.fixture(scope="module")
def proof():
    return prove_walk(SPEC, examples.matmul_example(5, 6, 3, 11))


def test_json_round_trip(proof, tmp_path):
    path = tmp_path / "p.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert np.array_equal(back.statement.outputs["c"], proof.statement.outputs["c"])
    assert back.layer == proof.layer
    verify_walk(SPEC, back)
    assert not list(tmp_path.glob("*.tmp"))


def _doc(proof):
    return json.loads(json.dumps(proof_file.to_json_dict(proof)))


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.pop("kind"), "kind"),
        (lambda d: d.update(kind="conv"), "kind"),
        (lambda d: d.update(format="x"), "format"),
        (lambda d: d["statement"].update(dims=[5, "6", 3]), "statement.dims"),
        (lambda d: d["statement"]["inputs"]["a"][1].pop(), "statement.inputs.a"),
        (lambda d: d["statement"]["weights"]["b"][2].__setitem__(0, 1.5), "statement.weights.b"),
        (lambda d: d["statement"]["outputs"]["c"][0].__setitem__(1, P), "statement.outputs.c"),
        (lambda d: d["proof"]["layer"]["sumcheck"]["rounds"][0][1].__setitem__(2, P), "rounds"),
        (lambda d: d["proof"]["layer"]["sumcheck"]["rounds"][1].__setitem__(0, [1, 2]), "rounds"),
        (lambda d: d["proof"]["layer"]["sumcheck"].update(rounds={}), "sumcheck.rounds"),
        (lambda d: d["proof"]["layer"].pop("sumcheck"), "proof.layer.sumcheck"),
    ],
)
def test_malformed_json_names_the_field(proof, edit, field):
    doc = _doc(proof)
    edit(doc)
    with pytest.raises(MalformedProofError) as e:
        proof_file.from_json_dict(doc)
    assert field in e.value.field


def test_load_errors(tmp_path):
    with pytest.raises(MalformedProofError, match="cannot read"):
        proof_file.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(MalformedProofError, match="not valid JSON"):
        proof_file.load(bad)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(MalformedProofError):
        proof_file.load(binary)


def test_files_written_together_leave_nothing_when_one_fails(tmp_path):
    """A proof and its committed I/O (`cairn prove --commit-io`) are written together: when
    one cannot be written, neither is, and no temporary file stays behind."""
    io, proof = tmp_path / "p.io.json", tmp_path / "missing" / "p.json"
    with pytest.raises(OSError):
        write_together({io: "{}", proof: "{}"})
    assert list(tmp_path.iterdir()) == []
    write_together({io: "{}", tmp_path / "p.json": "[]"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.io.json", "p.json"]
