"""Merkle trees: upstream Poseidon vectors, a naive reference tree, multi-leaf openings
honest and tampered, and how roots enter the channels."""

import hashlib
import struct

import cairn_native
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon import hash_many, pack_m31s, poseidon_hash
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import P
from cairn.prover.merkle.hashers import HASHES, get_hash, mix_root
from cairn.prover.merkle.proof import MerkleOpening, sibling_plan
from cairn.prover.merkle.tree import REBUILT_LEVELS, MerkleTree
from cairn.prover.merkle.verifier import verify_opening
from tests.vectors import SHARED

MERKLE = SHARED["poseidon252_merkle"]
POSEIDON, BLAKE = get_hash("poseidon"), get_hash("blake2s")


def ref_leaf(name, row):
    if name == "poseidon":
        return hash_many(pack_m31s(row))
    return int.from_bytes(hashlib.blake2s(struct.pack(f"<{len(row)}I", *row)).digest(), "big")


def ref_node(name, left, right):
    if name == "poseidon":
        return poseidon_hash(left, right)
    data = left.to_bytes(32, "big") + right.to_bytes(32, "big")
    return int.from_bytes(hashlib.blake2s(data).digest(), "big")


def ref_root(name, rows):
    level = [ref_leaf(name, [int(v) for v in row]) for row in rows]
    while len(level) > 1:
        level = [ref_node(name, level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def random_rows(seed, log_n, width):
    return np.random.default_rng(seed).integers(0, P, size=(1 << log_n, width), dtype=np.int64)


def test_upstream_poseidon_merkle_vectors():
    # A leaf is STWO's node "no children, values": hash_many of the packed values.
    leaf = POSEIDON.hash_leaves(np.array([[0, 1]]))[0]
    assert POSEIDON.to_int(leaf) == int(MERKLE["hash_node_no_children_values_0_1"])
    # A node with children and values (not produced by our trees) shares the sponge and packing.
    assert hash_many([1, 2, *pack_m31s([3])]) == int(MERKLE["hash_node_children_1_2_values_3"])
    # A node without values is poseidon_hash(left, right).
    children = POSEIDON.digests_from_ints([1, 2])
    assert POSEIDON.to_int(POSEIDON.hash_nodes(children)[0]) == poseidon_hash(1, 2)


@pytest.mark.parametrize("name", sorted(HASHES))
@settings(max_examples=15, deadline=None)
@given(log_n=st.integers(0, 6), width=st.integers(1, 20), seed=st.integers(0, 2**32))
def test_root_matches_reference(name, log_n, width, seed):
    rows = random_rows(seed, log_n, width)
    assert MerkleTree.commit(rows, get_hash(name)).root == ref_root(name, rows)


@pytest.mark.parametrize("name", sorted(HASHES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_open_verify_any_subset(name, data):
    """Depths on both sides of REBUILT_LEVELS: paths through rebuilt and kept levels."""
    log_n = data.draw(st.integers(0, REBUILT_LEVELS + 3))
    width = data.draw(st.integers(1, 17))
    subset = data.draw(st.sets(st.integers(0, (1 << log_n) - 1), min_size=1))
    rows = random_rows(data.draw(st.integers(0, 2**32)), log_n, width)
    tree = MerkleTree.commit(rows, get_hash(name))
    idx = np.array(sorted(subset))
    opening = tree.open(idx)
    got = verify_opening(get_hash(name), tree.root, log_n, width, idx, opening)
    assert np.array_equal(got, rows[idx])


@pytest.mark.parametrize("row_bytes", [1, 3, 4, 12, 63, 64, 65, 128, 200, 256])
def test_blake2s_rows_is_blake2s(row_bytes):
    """Rows hashed 16 at a time (cairn_native's lanes): every length of one or more blocks, a
    last block partial or full, and row counts around the lane width."""
    rng = np.random.default_rng(row_bytes)
    for rows in [1, 15, 16, 17, 40]:
        data = rng.integers(0, 256, rows * row_bytes, dtype=np.uint8).tobytes()
        want = b"".join(
            hashlib.blake2s(data[i * row_bytes : (i + 1) * row_bytes]).digest() for i in range(rows)
        )
        assert cairn_native.blake2s_rows(data, row_bytes) == want


def test_shared_nodes_are_sent_once():
    tree = MerkleTree.commit(random_rows(0, 5, 3), BLAKE)
    assert len(tree.open(np.arange(32)).siblings) == 0
    assert len(tree.open(np.array([6, 7])).siblings) == 4
    assert len(tree.open(np.array([0, 31])).siblings) == 8
    assert [len(x) for x in sibling_plan(np.array([0, 1, 2, 9]), 5)] == [2, 1, 2, 0, 1]


@pytest.fixture(params=sorted(HASHES))
def opened(request):
    hash_ = get_hash(request.param)
    tree = MerkleTree.commit(random_rows(1, 6, 4), hash_)
    idx = np.array([3, 17, 18, 40])
    return hash_, tree, idx, tree.open(idx)


def check(opened, opening=None, root=None, check_name="merkle.path"):
    hash_, tree, idx, honest = opened
    with pytest.raises(VerificationError) as err:
        verify_opening(hash_, tree.root if root is None else root, 6, 4, idx, opening or honest)
    assert err.value.check == check_name


def test_tampered_openings_are_rejected(opened):
    hash_, tree, _, op = opened
    for i in range(len(op.siblings)):
        bad = list(op.siblings)
        bad[i] ^= 1
        check(opened, MerkleOpening(op.leaves, bad))
    for i in range(len(op.leaves)):
        bad_rows = [list(r) for r in op.leaves]
        bad_rows[i][i % 4] = (bad_rows[i][i % 4] + 1) % P
        check(opened, MerkleOpening(bad_rows, op.siblings))
    check(opened, root=tree.root ^ 1)
    other = MerkleTree.commit(random_rows(2, 6, 4), hash_)
    check(opened, root=other.root)


def test_malformed_openings_are_rejected(opened):
    hash_, _, _, op = opened
    rows = [list(r) for r in op.leaves]
    check(opened, MerkleOpening(rows[:-1], op.siblings), check_name="merkle.leaf_count")
    check(
        opened, MerkleOpening([r[:-1] for r in rows], op.siblings), check_name="merkle.leaf_width"
    )
    check(opened, MerkleOpening(op.leaves, op.siblings[:-1]), check_name="merkle.sibling_count")
    check(opened, MerkleOpening(op.leaves, [*op.siblings, 0]), check_name="merkle.sibling_count")
    too_big = 1 << 256 if hash_.name == "blake2s" else (1 << 251) + 17 * (1 << 192) + 1
    check(opened, MerkleOpening(op.leaves, [too_big, *op.siblings[1:]]), check_name="merkle.digest")
    # A limb equal to p would be a second encoding of 0 in the Poseidon packing.
    rows[0][0] = P
    check(opened, MerkleOpening(rows, op.siblings), check_name="merkle.value")


def test_roots_enter_either_channel_as_documented():
    """docs/merkle.md: a Poseidon root is one felt, a Blake2s root its 8 LE u32 words."""
    p_root = MerkleTree.commit(random_rows(3, 2, 2), POSEIDON).root
    b_root = MerkleTree.commit(random_rows(3, 2, 2), BLAKE).root
    ch = Poseidon252Channel()
    mix_root(ch, POSEIDON, p_root)
    ref = Poseidon252Channel()
    ref.mix_root(p_root)
    assert ch.digest == ref.digest
    mix_root(ch, BLAKE, b_root)
    ref.mix_u32s(struct.unpack("<8I", b_root.to_bytes(32, "big")))
    assert ch.digest == ref.digest
    bch = Blake2sChannel()
    mix_root(bch, POSEIDON, p_root)
    assert bch.digest == hashlib.blake2s(bytes(32) + p_root.to_bytes(32, "big")).digest()
