"""Calldata of PCS openings (kind 2) and of layer proofs with committed weights (kind 4), the
registry's commitment entries and the Python mirror of the contract's binding checks. The
Cairo side of the same inputs is tests/cairo_pcs_vectors.py (cairo-test) and
tests/test_devnet_pcs.py."""

import dataclasses
import random

import numpy as np
import pytest

from cairn import examples
from cairn.deploy.registry import Model, check_walk_binding, contract_check, registered_entry
from cairn.prover.errors import VerificationError
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import ModelBinding
from cairn.serializer import calldata
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.header import KIND_PCS, KIND_WALK, VERSION
from cairn.serializer.serde import short_string
from tests.cairo_pcs_vectors import WEAK, WEAK_BLAKE2S, Honest, commit_batch, pcs_verdict


def _bound_matmul(params, model_id=5, seed=2):
    """A matmul 3 × 4 × 8 whose B is committed and bound as weight 0 of `model_id`."""
    st, data = commit_weights(examples.matmul_example(3, 4, 8, seed), params)
    st = dataclasses.replace(st, binding=ModelBinding(model_id, 0xC0, {"b": 0}))
    return prove_walk(LAYERS["matmul"], st, data)


@pytest.fixture(scope="module")
def committed():
    proof = _bound_matmul(POSEIDON_PARAMS)
    return proof.statement.committed["b"], proof


def test_opening_round_trip_and_parts():
    side = commit_batch(random.Random(1), WEAK, [7, 3, 0], [2, 1, 1], False)
    case = Honest.prove(WEAK, *side)
    felts = case.felts
    assert felts[:3] == [VERSION, KIND_PCS, 3]
    assert felts == [*case.parts.front, *(f for g in case.parts.trees for f in g)]
    # n = 7, arity 2: groups (0,2], (2,4], (4,6], (6,7]; the sizes 3 and 0 enter at levels
    # 4 and 7, so the trees are 7's, then the layer at 2 and 3's, the layer at 4, the layer at
    # 6 and 0's
    assert len(case.parts.trees) == 6
    back = calldata.decode(felts, WEAK)
    assert isinstance(back, calldata.PcsOpening)
    assert calldata.encode(back, WEAK) == felts
    statement_felts = calldata.io_felts(felts, WEAK)
    assert statement_felts == felts[2 : 2 + len(calldata.encode_statement(case.statement))]


def test_blake2s_opening_round_trip_and_digests():
    """A Blake2s digest travels as (low, high) halves; a half >= 2^128 is refused where Cairo
    refuses it: a root or layer root by the reader, a sibling by the Merkle verifier."""
    side = commit_batch(random.Random(2), WEAK_BLAKE2S, [7, 3], [1, 1], True)
    case = Honest.prove(WEAK_BLAKE2S, *side)
    felts = case.felts
    root = case.statement[0][0].root
    assert felts[3:7] == [2, 7, root % (1 << 128), root >> 128]
    back = calldata.decode(felts, WEAK)
    assert back.statement == case.statement and back.proof == case.opening
    assert calldata.encode(back, WEAK) == felts
    assert pcs_verdict(felts, WEAK) is None
    for at, check in ((5, "merkle.digest"), (case.poly_at(1), "pcs.hash")):
        bad = list(felts)
        bad[at] = 1 << 128 if check == "merkle.digest" else 1
        with pytest.raises(MalformedProofError) as e:
            calldata.decode(bad, WEAK)
        assert e.value.check == check
    last_sibling = case.tree_at(1) - 1
    bad = [*felts[:last_sibling], 1 << 128, *felts[last_sibling + 1 :]]
    assert pcs_verdict(bad, WEAK) == "merkle.digest"


def test_committed_round_trip(committed):
    """B travels as its commitment (shape, root, size, hash) and the opening's tree parts;
    the registry accepts it as model 5's weight 0."""
    tensor, bound = committed
    felts = calldata.encode(bound)
    assert felts[:2] == [VERSION, KIND_WALK]
    back = calldata.decode(felts)
    assert back.statement.binding == ModelBinding(5, 0xC0, {"b": 0})
    assert not back.statement.weights and back.statement.committed["b"] == tensor
    assert calldata.encode(back) == felts
    models = {5: Model(0xC0, tuple(calldata.commitment_entry(tensor)))}
    assert contract_check(felts, models) is None


def test_a_blake2s_b_goes_on_chain():
    blake = calldata.encode(_bound_matmul(PARAMS["blake2s"], seed=3))
    assert calldata.decode(blake).statement.committed["b"].commitment.hash == "blake2s"


def test_registry_entries_and_binding(committed):
    tensor, bound = committed
    blake, _ = commit_tensor(np.ones((2, 3), dtype=np.int64), PARAMS["blake2s"])
    poseidon = calldata.commitment_entry(tensor)
    assert poseidon == [1, tensor.commitment.root, 2, 4, 8]
    blake_entry = calldata.commitment_entry(blake)
    root = blake.commitment.root
    assert blake_entry == [2, root % (1 << 128), root >> 128, 2, 2, 3]
    entries = [*blake_entry, *poseidon]
    assert registered_entry(entries, 0) == blake_entry
    assert registered_entry(entries, 1) == poseidon
    for bad, weight in ((entries, 2), (entries[:-1], 1), ([3, *entries], 0), ([], 0)):
        with pytest.raises(VerificationError) as e:
            registered_entry(bad, weight)
        assert e.value.check == "registry.weight"
    st = bound.statement
    assert check_walk_binding({5: Model(0xC0, tuple(poseidon))}, st.binding, st.committed) == 5
    for models, check in (
        ({}, "registry.unknown_model"),
        ({5: Model(0xC0, tuple(blake_entry))}, "registry.commitment"),
        ({5: Model(0xC0, (1, tensor.commitment.root, 2, 4, 9))}, "registry.commitment"),
        ({5: Model(0xC0, tuple(blake_entry[:3]))}, "registry.weight"),
        ({5: Model(0xC1, tuple(poseidon))}, "registry.config"),
    ):
        with pytest.raises(VerificationError) as e:
            check_walk_binding(models, st.binding, st.committed)
        assert e.value.check == check


def _at(felts, index, value):
    return [*felts[:index], value, *felts[index + 1 :]]


def test_malformed_committed_calldata(committed):
    """What the readers check of a committed weight: its hash, its size, the group parts."""
    _, bound = committed
    felts = calldata.encode(bound)
    models = {5: Model(0xC0, tuple(calldata.commitment_entry(bound.statement.committed["b"])))}
    at = felts.index(short_string("poseidon"))  # B's hash, after its root and n_vars
    for bad, check in (
        (_at(felts, at, short_string("sha3")), "pcs.hash"),
        (_at(felts, at - 1, 40), "pcs.size"),
        (felts[:-1], "calldata.truncated"),
        ([*felts, 0], "calldata.extra"),
        (_at(felts, 1, KIND_PCS), "pcs.statement"),
    ):
        assert contract_check(bad, models) == check
