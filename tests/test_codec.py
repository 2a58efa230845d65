"""Layer proofs in JSON: exact round trip; malformed files name the JSON path at fault."""

import copy

import numpy as np
import pytest

from cairn.prover.fields import P
from cairn.prover.layers.posenc.model import make_statement
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.serializer import proof_file
from cairn.serializer.codec import proof_felts
from cairn.serializer.errors import MalformedProofError


@pytest.fixture(scope="module")
def proof():
    rng = np.random.default_rng(2)
    st = make_statement(rng.integers(-5, 5, (3, 4)), rng.integers(-5, 5, (20, 4)))
    return prove_walk(LAYERS["posenc"], st)


def test_round_trip_is_exact(proof, tmp_path):
    path = tmp_path / "p.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.layer == proof.layer and back.inputs == proof.inputs
    for group in proof_file.TENSOR_GROUPS:
        mine, theirs = getattr(proof.statement, group), getattr(back.statement, group)
        assert mine.keys() == theirs.keys()
        assert all(np.array_equal(mine[k], theirs[k]) for k in mine)
    # x_value; siblings (length + 3); no empty-rows proof (x public); two dicts of one None
    # each; no opening, no witness opening (None each)
    assert proof_felts(back) == 1 + 1 + 3 + 1 + 2 * 2 + 1 + 1


def _set(path, value):
    def edit(doc):
        *parents, last = path
        for key in parents:
            doc = doc[key]
        doc[last] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (_set(("proof", "layer", "x_value", 2), P), "proof.layer.x_value[2]"),
        (_set(("proof", "layer", "siblings"), "x"), "proof.layer.siblings"),
        (_set(("proof", "layer", "siblings", 0), [1, 2]), "proof.layer.siblings[0]"),
        (lambda d: d["proof"]["layer"].pop("x_value"), "proof.layer.x_value"),
        (_set(("statement", "inputs", "x", 1, 2), 1 << 40), "statement.inputs.x[1][2]"),
        (_set(("statement", "inputs", "x", 1), [1]), "statement.inputs.x[1]"),
        (_set(("statement", "dims", 0), -1), "statement.dims[0]"),
        (_set(("proof", "inputs"), []), "proof.inputs"),
        (_set(("kind",), "softmax"), "kind"),
    ],
)
def test_malformed_names_the_path(proof, edit, field):
    doc = copy.deepcopy(proof_file.to_json_dict(proof))
    edit(doc)
    with pytest.raises(MalformedProofError) as e:
        proof_file.from_json_dict(doc)
    assert e.value.field == field


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, None, "nested too deeply"),
        ('{"format": "cairn-proof", "version": true}', "version", "unsupported"),
        ('{"format": "cairn-proof", "version": 1, "kind": ["qkv"]}', "kind", "unknown"),
    ],
)
def test_hostile_files_are_malformed_not_crashes(tmp_path, text, field, problem):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(MalformedProofError) as e:
        proof_file.load(path)
    assert problem in e.value.problem and e.value.field == (field or str(path))


def test_committed_weight_sizes_must_fit_their_shapes(proof):
    st, data = commit_weights(proof.statement, PARAMS["blake2s"])
    doc = proof_file.to_json_dict(prove_walk(LAYERS["posenc"], st, data))
    doc["statement"]["committed"]["p"]["commitment"]["n_vars"] += 1
    with pytest.raises(MalformedProofError) as e:
        proof_file.from_json_dict(doc)
    assert e.value.field == "statement.committed.p.commitment.n_vars"
    doc["statement"]["dims"][0] = 1 << 64
    with pytest.raises(MalformedProofError) as e:
        proof_file.from_json_dict(doc)
    assert e.value.field == "statement.dims[0]"
