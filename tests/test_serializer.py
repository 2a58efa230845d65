"""Proof files and calldata: round trips, and every malformed input named."""

import json

import numpy as np
import pytest

from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.fields import P
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.matmul.verifier import verify_matmul
from cairn.serializer import calldata, proof_file
from cairn.serializer.errors import MalformedProofError


@pytest.fixture(scope="module")
def proof():
    rng = np.random.default_rng(11)
    return prove_matmul(
        make_instance(rng.integers(-128, 128, (5, 6)), rng.integers(-128, 128, (6, 3)))
    )


def test_json_round_trip(proof, tmp_path):
    path = tmp_path / "p.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert np.array_equal(back.instance.c, proof.instance.c)
    assert back.sumcheck == proof.sumcheck
    verify_matmul(back)
    assert not list(tmp_path.glob("*.tmp"))


def test_calldata_round_trip(proof):
    felts = calldata.encode(proof)
    back = calldata.decode(felts)
    verify_matmul(back)
    assert calldata.encode(back) == felts
    assert felts[:5] == [calldata.CALLDATA_VERSION, calldata.KIND_MATMUL, 5, 6, 3]
    assert all(0 <= f < STARK_PRIME for f in felts)


def test_calldata_size_formula(proof):
    m, k, n = 5, 6, 3
    expected = 5 + 3 + -(-m * k // 8) + -(-k * n // 8) + -(-m * n // 8) + 1 + 3 * 3
    assert len(calldata.encode(proof)) == expected


def _offset_of_rounds(felts):
    pos = 5
    for _ in range(3):
        pos += 1 + felts[pos]
    return pos


def _set(felts, i, value):
    out = list(felts)
    out[i] = value
    return out


@pytest.mark.parametrize(
    ("mutate", "check"),
    [
        (lambda f: f[:-1], "calldata.truncated"),
        (lambda f: f[:7], "calldata.truncated"),
        (lambda f: [*f, 0], "calldata.extra"),
        (lambda f: _set(f, 0, 1), "calldata.version"),
        (lambda f: _set(f, 1, 9), "calldata.kind"),
        (lambda f: _set(f, 2, 0), "calldata.dims"),
        (lambda f: _set(f, 4, (1 << 20) + 1), "calldata.dims"),
        (lambda f: _set(f, 5, f[5] + 1), "calldata.length"),
        (lambda f: _set(f, 6, P << (31 * 7)), "calldata.limb"),
        (lambda f: _set(f, 6, f[6] | 1 << 248), "calldata.marker"),
        (lambda f: _set(f, _offset_of_rounds(f), 4), "sumcheck.round_count"),
        (lambda f: _set(f, _offset_of_rounds(f) + 1, 3), "sumcheck.round_degree"),
        (
            lambda f: _set(f, _offset_of_rounds(f) + 2, f[_offset_of_rounds(f) + 2] + (1 << 124)),
            "calldata.sentinel",
        ),
        (lambda f: _set(f, _offset_of_rounds(f) + 2, (1 << 124) | P), "calldata.limb"),
    ],
)
def test_malformed_calldata_names_the_cairo_check(proof, mutate, check):
    with pytest.raises(MalformedProofError) as e:
        calldata.decode(mutate(calldata.encode(proof)))
    assert e.value.check == check


def test_non_felt_calldata(proof):
    with pytest.raises(MalformedProofError, match="not a felt252"):
        calldata.decode([STARK_PRIME, *calldata.encode(proof)[1:]])


def _doc(proof):
    return json.loads(json.dumps(proof_file.to_json_dict(proof)))


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.pop("kind"), "kind"),
        (lambda d: d.update(kind="conv"), "kind"),
        (lambda d: d.update(format="x"), "format"),
        (lambda d: d["instance"].update(m=0), "instance.m"),
        (lambda d: d["instance"].update(k="6"), "instance.k"),
        (lambda d: d["instance"]["a"][1].pop(), "instance.a[1]"),
        (lambda d: d["instance"]["b"][2].__setitem__(0, 1.5), "instance.b[2][0]"),
        (lambda d: d["instance"]["c"][0].__setitem__(1, P), "instance.c[0][1]"),
        (lambda d: d["instance"].update(c=[]), "instance.c"),
        (lambda d: d["proof"]["sumcheck"]["rounds"][0][1].__setitem__(2, P), "rounds[0][1][2]"),
        (lambda d: d["proof"]["sumcheck"]["rounds"][1].__setitem__(0, [1, 2]), "rounds[1][0]"),
        (lambda d: d["proof"]["sumcheck"].update(rounds={}), "proof.sumcheck.rounds"),
        (lambda d: d["proof"].pop("sumcheck"), "proof.sumcheck"),
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
