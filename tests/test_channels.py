"""Every vector of ../shared/vectors/stwo_channels.json, with cairo-lang as an independent
oracle for the Poseidon backend (tests/test_native_poseidon.py adds poseidon-py)."""

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starkware.cairo.common.poseidon_hash import poseidon_hash_many as ref_hash_many
from starkware.cairo.common.poseidon_hash import poseidon_perm as ref_perm

from cairn.prover.channels.base import Channel
from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon import (
    STARK_PRIME,
    hades,
    hash_many,
    pack_m31s,
    poseidon_hash,
    unpack_m31s,
)
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.fields import QM31, P
from tests.vectors import SHARED

POS = SHARED["poseidon252_channel"]
BLAKE = SHARED["blake2s_channel"]
MERKLE = SHARED["poseidon252_merkle"]
felt252 = st.integers(0, STARK_PRIME - 1)


@settings(max_examples=25)
@given(felt252, felt252, felt252)
def test_poseidon_matches_cairo_lang_permutation(a, b, c):
    assert list(hades(a, b, c)) == list(ref_perm(a, b, c))


@settings(max_examples=25)
@given(st.lists(felt252, max_size=9))
def test_poseidon_matches_cairo_lang_hash_many(xs):
    assert hash_many(xs) == ref_hash_many(xs)


def test_poseidon_mix_u64_vector():
    ch = Poseidon252Channel()
    ch.mix_u64(0x1111222233334444)
    assert ch.digest == int(POS["mix_u64_0x1111222233334444_digest"], 16)


def test_poseidon_draw_u32s_vectors():
    assert Poseidon252Channel().draw_u32s() == POS["draw_u32s_from_default"]
    assert Poseidon252Channel(0xDEADBEEF).draw_u32s() == POS["draw_u32s_with_digest_0xdeadbeef"]


def test_poseidon_merkle_node_vectors():
    # A Merkle node hashes [left, right] + its packed column values; a leaf has no children.
    assert hash_many(pack_m31s([0, 1])) == int(MERKLE["hash_node_no_children_values_0_1"])
    assert hash_many([1, 2, *pack_m31s([3])]) == int(MERKLE["hash_node_children_1_2_values_3"])


def test_blake_vectors():
    assert Blake2sChannel().draw_u32s() == BLAKE["draw_u32s_from_default"]
    assert Blake2sChannel().draw_secure_felts(8)[1].coords == tuple(
        BLAKE["draw_secure_felts_8_from_default_second"]
    )
    ch = Blake2sChannel()
    ch.mix_u64(0x1111222233334444)
    assert ch.digest.hex() == BLAKE["mix_u64_0x1111222233334444_digest_hex"]


def test_poseidon_draw_semantics():
    ch = Poseidon252Channel(123)
    s0 = hades(123, 0, 3)[0]
    limbs = ch.draw_base_felts()
    assert limbs == [((s0 >> (31 * i)) & (2**31 - 1)) % P for i in range(8)]
    assert ch.n_draws == 1
    two = Poseidon252Channel(123).draw_secure_felts(3)
    fresh = Poseidon252Channel(123)
    first = fresh.draw_base_felts()
    assert two[0].coords == tuple(first[:4]) and two[1].coords == tuple(first[4:])
    assert two[2] == fresh.draw_secure_felt()


def test_poseidon_mix_felts_packing():
    x, y, z = QM31(1, 2, 3, 4), QM31(5, 6, 7, 8), QM31(9, 10, 11, 12)
    ch = Poseidon252Channel(77)
    ch.draw_felt252()
    ch.mix_felts([x, y, z])
    pair = y.pack(x.pack(1))
    assert pair >> 248 == 1
    assert ch.digest == hash_many([77, pair, z.pack(1)]) and ch.n_draws == 0


def test_poseidon_mix_u32s_length_padding():
    ch = Poseidon252Channel()
    ch.mix_u32s([1, 2])
    assert ch.digest == hash_many([0, ((1 << 32 | 2) << (32 * 5)) + 2 * (1 << 248)])
    other = Poseidon252Channel()
    other.mix_u32s([1, 2, 0])
    assert other.digest != ch.digest
    seven = Poseidon252Channel()
    seven.mix_u32s(list(range(7)))
    word = 0
    for w in range(7):
        word = word << 32 | w
    assert seven.digest == hash_many([0, word])


def test_mix_root_and_u64_range():
    ch = Poseidon252Channel(5)
    ch.mix_root(9)
    assert ch.digest == poseidon_hash(5, 9)
    with pytest.raises(ValueError):
        ch.mix_u64(1 << 64)


@pytest.mark.parametrize("channel", [Poseidon252Channel, Blake2sChannel])
def test_proof_of_work(channel):
    ch = channel()
    ch.mix_u64(42)
    nonce = ch.grind(8)
    assert ch.verify_pow_nonce(8, nonce)
    assert not all(ch.verify_pow_nonce(8, n) for n in range(nonce + 1, nonce + 40))


@pytest.mark.parametrize("channel", [Poseidon252Channel, Blake2sChannel])
@pytest.mark.parametrize("n_bits", [0, 1, 11])
def test_native_grind_finds_the_least_nonce(channel, n_bits):
    """Both channels grind natively; the nonce is the one the definition's loop finds."""
    ch = channel()
    ch.mix_u64(n_bits + 7)
    assert ch.grind(n_bits) == Channel.grind(ch, n_bits)


def test_blake_pow_definition():
    ch = Blake2sChannel()
    h1 = hashlib.blake2s(
        (0x12345678).to_bytes(4, "little") + bytes(12) + bytes(32) + (3).to_bytes(4, "little")
    ).digest()
    h = hashlib.blake2s(h1 + (5).to_bytes(8, "little")).digest()
    low = int.from_bytes(h[:8], "little")
    assert ch.verify_pow_nonce(3, 5) == (low % 8 == 0)


def test_blake_mix_felts_and_rejection_sampling():
    ch = Blake2sChannel()
    ch.mix_felts([QM31(1, 2, 3, 4)])
    want = hashlib.blake2s(bytes(32) + b"".join(v.to_bytes(4, "little") for v in (1, 2, 3, 4)))
    assert ch.digest == want.digest()
    ch.mix_root(b"\x01" * 32)
    assert all(0 <= v < P for v in ch.draw_base_felts())


@given(st.lists(st.integers(0, P - 1), max_size=40))
def test_pack_unpack_round_trip(values):
    words = pack_m31s(values)
    assert len(words) == -(-len(values) // 8)
    assert all(w < STARK_PRIME for w in words)
    assert unpack_m31s(words, len(values)).tolist() == values


def test_pack_is_length_injective():
    assert pack_m31s([0, 1]) != pack_m31s([1])
    assert pack_m31s([5] * 8) != pack_m31s([5] * 7)


@pytest.mark.parametrize(
    ("words", "count", "problem"),
    [
        ([P << (31 * 7)], 8, "limb equal to p"),
        ([1 << 248], 8, "length marker"),
        ([5], 1, "length marker"),
        ([1 << 248 | 1 << 40], 1, "length marker"),
        ([1, 2], 3, "expected 1"),
    ],
)
def test_unpack_rejects(words, count, problem):
    with pytest.raises(ValueError, match=problem):
        unpack_m31s(words, count)


def test_pack_rejects_non_canonical():
    with pytest.raises(ValueError):
        pack_m31s(np.array([P]))
