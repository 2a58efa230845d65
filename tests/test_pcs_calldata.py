"""Calldata of PCS openings (kind 2) and committed-weight matmuls (kind 3), the registry's
commitment entries and the Python mirror of the contract's binding checks. The Cairo side
of the same inputs is tests/cairo_pcs_vectors.py (cairo-test) and tests/test_devnet_pcs.py."""

import random

import numpy as np
import pytest

from cairn.deploy.registry import Model, check_binding, contract_check, io_hash, registered_entry
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.errors import VerificationError
from cairn.prover.matmul.instance import WeightBinding
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.serializer import calldata
from cairn.serializer.errors import MalformedProofError
from tests.cairo_pcs_vectors import WEAK, WEAK_BLAKE2S, Honest, commit_batch, pcs_verdict


@pytest.fixture(scope="module")
def committed():
    rng = np.random.default_rng(2)
    inst = make_instance(rng.integers(-128, 128, (3, 4)), rng.integers(-128, 128, (4, 8)))
    tensor, data = commit_tensor(inst.b, POSEIDON_PARAMS)
    return tensor, prove_matmul(inst, data, WeightBinding(5, 0, 0xC0))


def test_opening_round_trip_and_parts():
    side = commit_batch(random.Random(1), WEAK, [7, 3, 0], [2, 1, 1], False)
    case = Honest.prove(WEAK, *side)
    felts = case.felts
    assert felts[:3] == [calldata.CALLDATA_VERSION, calldata.KIND_PCS, 3]
    assert felts == [*case.parts.front, *(f for g in case.parts.groups for f in g)]
    assert len(case.parts.groups) == 4  # n = 7, arity 2: groups (0,2], (2,4], (4,6], (6,7]
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
    last_sibling = case.group_at(1) - 1
    bad = [*felts[:last_sibling], 1 << 128, *felts[last_sibling + 1 :]]
    assert pcs_verdict(bad, WEAK) == "merkle.digest"


def test_committed_round_trip_and_io(committed):
    tensor, bound = committed
    felts = calldata.encode(bound)
    head = [calldata.CALLDATA_VERSION, calldata.KIND_COMMITTED_MATMUL, 5, 0, 0xC0, 1]
    assert felts[:7] == [*head, tensor.commitment.root]
    back = calldata.decode(felts)
    assert back.instance.binding == WeightBinding(5, 0, 0xC0)
    assert back.instance.b is None
    assert back.instance.b_commitment == tensor.commitment
    assert calldata.encode(back) == felts
    # model id, weight, config hash, B's hash and root, m, k, n, then A (12 values: 2 words)
    # and C (24: 3 words), each after its length: which weight of which model, and the I/O
    assert io_hash(felts) == hash_many(felts[2 : 2 + 5 + 3 + 1 + 2 + 1 + 3])
    models = {5: Model(0xC0, tuple(calldata.commitment_entry(tensor)))}
    assert contract_check(felts, models) is None


def test_version_1_calldata_is_refused(committed):
    """Version 1's encoder wrote kind 3 without the config hash and hash tag: read as version 2
    its root would be a config hash, so the version is refused before anything else."""
    felts = calldata.encode(committed[1])
    old = [1, *felts[1:4], *felts[6:]]  # model id, weight, then the root
    with pytest.raises(MalformedProofError) as e:
        calldata.decode(old)
    assert e.value.check == "calldata.version"


def test_a_blake2s_b_goes_on_chain():
    rng = np.random.default_rng(3)
    inst = make_instance(rng.integers(-8, 8, (2, 2)), rng.integers(-8, 8, (2, 2)))
    _, data = commit_tensor(inst.b, PARAMS["blake2s"])
    blake = calldata.encode(prove_matmul(inst, data, WeightBinding(5)))
    assert blake[5] == 2 and calldata.decode(blake).instance.b_commitment.hash == "blake2s"


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
    check_binding({5: Model(0xC0, tuple(poseidon))}, bound)
    for models, check in (
        ({}, "registry.unknown_model"),
        ({5: Model(0xC0, tuple(blake_entry))}, "registry.commitment"),
        ({5: Model(0xC0, (1, tensor.commitment.root, 2, 4, 9))}, "registry.commitment"),
        ({5: Model(0xC0, tuple(blake_entry[:3]))}, "registry.weight"),
        ({5: Model(0xC1, tuple(poseidon))}, "registry.config"),
    ):
        with pytest.raises(VerificationError) as e:
            check_binding(models, bound)
        assert e.value.check == check


@pytest.mark.parametrize(
    ("edit", "check"),
    [
        (lambda f: [*f[:1], 4, *f[2:]], "calldata.kind"),
        (lambda f: f[:8], "calldata.truncated"),
        (lambda f: [*f[:5], 3, *f[6:]], "pcs.hash"),
        (lambda f: [*f[:8], 1 << 20, 1 << 20, *f[10:]], "pcs.size"),
        (lambda f: [*f, 0], "calldata.extra"),
    ],
)
def test_malformed_committed_calldata(committed, edit, check):
    _, bound = committed
    with pytest.raises(MalformedProofError) as e:
        calldata.decode(edit(calldata.encode(bound)))
    assert e.value.check == check
