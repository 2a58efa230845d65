"""Walk proofs as calldata (docs/calldata.md, "Walk proofs"): the Serde-order encoding round
trips for every on-chain kind, the generated Cairo types are current, and every malformed
input is refused with the check the Cairo reader panics with."""

import dataclasses
import json

import numpy as np
import pytest

from cairn.deploy.registry import contract_check, io_hash
from cairn.deploy.sessions import session_state
from cairn.prover.channels.poseidon import STARK_PRIME, hash_many
from cairn.prover.errors import VerificationError
from cairn.prover.walk.proof import WalkProof
from cairn.serializer import cairo_types, proof_file
from cairn.serializer.calldata import CalldataParts
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.header import KIND_WALK, VERSION
from cairn.serializer.serde import fields_of, short_string
from cairn.serializer.walk_calldata import (
    ONCHAIN_KINDS,
    decode_walk,
    encode_walk,
    encode_walk_parts,
    io_felts,
)
from tests.cairo_walk_vectors import OUTPUT as WALK_VECTORS
from tests.cairo_walk_vectors import render
from tests.walk_examples import SHAPES, example

CASES = [(kind, i) for kind in ONCHAIN_KINDS for i in range(len(SHAPES[kind]))]


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_round_trip_and_python_accepts(kind, index):
    proof = example(kind, index)
    felts = encode_walk(proof)
    assert felts[:2] == [VERSION, KIND_WALK]
    assert all(0 <= f < STARK_PRIME for f in felts)
    assert encode_walk(decode_walk(felts)) == felts
    assert contract_check(felts, {}) is None


def test_io_hash_covers_the_statement_only():
    proof = example("posenc")
    felts = encode_walk(proof)
    io = io_felts(felts)
    assert felts[2 : 2 + len(io)] == io
    assert io_hash(felts) == hash_many(io)
    other = dataclasses.replace(proof, layer=dataclasses.replace(proof.layer, siblings=[]))
    assert io_hash(encode_walk(other)) == io_hash(felts)


def test_generated_cairo_types_are_current():
    path = WALK_VECTORS.parents[1] / "walk" / "proof.cairo"
    assert path.read_text() == cairo_types.generate(), (
        "run `python -m cairn.serializer.cairo_types > verifier_cairo/src/walk/proof.cairo`"
    )
    # The Cairo reader takes the statement first to hash it (walk/calldata.cairo).
    assert list(fields_of(WalkProof)) == [
        "statement",
        "outputs",
        "layer",
        "inputs",
        "weights",
        "opening",
        "witness_opening",
    ]


def test_generated_walk_vectors_are_current():
    assert WALK_VECTORS.read_text() == render(), "run `python -m tests.cairo_walk_vectors`"


def _refused(felts):
    with pytest.raises(MalformedProofError) as e:
        decode_walk(felts)
    return e.value.check


def _at(felts, value, index):
    return [*felts[:index], value, *felts[index + 1 :]]


def test_header_and_length_checks():
    felts = encode_walk(example("posenc"))
    assert _refused(_at(felts, 2, 0)) == "calldata.version"
    assert _refused(_at(felts, 1, 1)) == "calldata.kind"
    assert _refused(felts[:-1]) == "calldata.serde"
    assert _refused([*felts, 0]) == "calldata.extra"


def test_statement_kind_and_dims_are_u32_serde():
    felts = encode_walk(example("posenc"))
    # felts[2] is the kind's short string, [3] the dims' length, [4] the first dim
    assert felts[2] == short_string("posenc")
    assert _refused(_at(felts, 1 << 32, 4)) == "calldata.serde"


def test_a_qm31_felt_is_checked_as_it_is_read():
    proof = example("posenc")
    felts = encode_walk(proof)
    value = proof.layer.x_value.pack(1)
    at = felts.index(value)
    assert _refused(_at(felts, value + (1 << 124), at)) == "calldata.sentinel"
    p31 = (1 << 31) - 1
    assert _refused(_at(felts, (value & ~p31) | p31, at)) == "calldata.limb"


def test_tensor_words_are_checked_after_the_read():
    proof = example("posenc")
    st = proof.statement
    felts = encode_walk(proof)
    # x: 3 × 5 = 15 values in two words, the second holding 7 with its marker 7·2^248
    x_words = felts.index(2, felts.index(short_string("x")) + 1) + 1  # after rank 2, dims
    words_at = x_words + 3
    assert felts[words_at - 1] == 2 and st.inputs["x"].shape == (3, 5)
    assert _refused(_at(felts, felts[words_at] + (1 << 248), words_at)) == "calldata.marker"
    limb = (felts[words_at] & ~((1 << 31) - 1)) | ((1 << 31) - 1)
    assert _refused(_at(felts, limb, words_at)) == "calldata.limb"


def test_names_must_strictly_increase():
    proof = example("qkv")
    felts = encode_walk(proof)
    b_k, b_q = short_string("b_k"), short_string("b_q")
    i, j = felts.index(b_k), felts.index(b_q)
    swapped = _at(_at(felts, b_q, i), b_k, j)
    assert _refused(swapped) == "calldata.names"


def test_unbounded_statements_are_refused_on_read():
    proof = example("posenc")
    felts = encode_walk(proof)
    st = proof.statement
    unbounded = dataclasses.replace(st, unbounded=frozenset({"x"}))
    tampered = encode_walk(dataclasses.replace(proof, statement=unbounded))
    assert _refused(tampered) == "calldata.offchain"
    assert np.array_equal(decode_walk(felts).statement.inputs["x"], st.inputs["x"])


def test_a_shape_too_large_for_its_words_is_a_length_error():
    """Dims whose product exceeds any int64 (and Cairo's u64) are refused as
    `calldata.length` before any overflow; tests/cairo_walk_vectors.py has the Cairo twin."""
    felts = encode_walk(example("posenc"))
    x_dims = felts.index(short_string("x")) + 2  # after the name: rank 2, then s and e
    huge = _at(_at(felts, (1 << 32) - 1, x_dims), (1 << 32) - 1, x_dims + 1)
    assert _refused(huge) == "calldata.length"


def test_a_proof_file_binding_out_of_range_is_malformed(tmp_path):
    """A model id or config hash ≥ p, or a weight index ≥ 2^32, is refused on load (the
    transcript could not absorb it), with the field's path."""
    path = tmp_path / "bound.json"
    proof_file.save(example("posenc", 0, committed=True, bound=True), path)
    doc = json.loads(path.read_text())
    for field, value, where in (
        ("model_id", STARK_PRIME, "statement.binding.model_id"),
        ("weights", {"p": 1 << 32}, "statement.binding.weights.p"),
    ):
        bad = json.loads(json.dumps(doc))
        bad["statement"]["binding"][field] = value
        path.write_text(json.dumps(bad))
        with pytest.raises(MalformedProofError) as e:
            proof_file.load(path)
        assert e.value.field == where


@pytest.mark.parametrize("kind", ["matmum", "linear", "qkv", "posenc"])
def test_a_statement_of_another_kind_is_refused_by_name(kind):
    """The layer proof's variant names the kind (matmul, linear and qkv share one proof type):
    a statement naming any other, known or not, is `statement.kind`, as in the Cairo walk."""
    felts = encode_walk(example("matmul"))
    assert felts[2] == short_string("matmul")
    assert contract_check([*felts[:2], short_string(kind), *felts[3:]], {}) == "statement.kind"


def test_a_session_state_is_rebuilt_with_the_variant_kind():
    """deploy/sessions replays the layer of the variant's kind, as the contract's
    `open_session` does: a committed linear proof under matmul's variant (one proof type)
    raises `statement.kind` there as it reverts on chain."""
    front, trees = encode_walk_parts(example("linear", 0, committed=True))
    front[3 + len(io_felts(front))] = ONCHAIN_KINDS.index("matmul")  # no output values
    parts = CalldataParts(front, trees)
    assert contract_check(parts.flat, {}) == "statement.kind"
    with pytest.raises(VerificationError) as e:
        session_state(parts, [0])
    assert e.value.check == "statement.kind"
