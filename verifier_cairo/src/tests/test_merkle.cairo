//! Merkle building blocks; honest and tampered openings are the generated `merkle_*` tests.

use crate::blake2s::Blake2sHash;
use crate::merkle::hashers::MerkleHasher;
use crate::merkle::proof::check_indices;
use crate::packing::pack_m31s;
use super::support::verify_blake2s;
use super::vectors::{
    MerkleCase, merkle_blake2s_shared, packing_cases, stwo_merkle_leaf,
};

#[test]
fn packs_like_python() {
    for case in packing_cases() {
        let mut values = array![];
        for v in case.values {
            values.append((*v).try_into().unwrap());
        }
        assert_eq!(pack_m31s(values.span()).span(), case.words);
    }
}

/// A leaf is STWO's node "values, no children".
#[test]
fn stwo_poseidon_leaf() {
    let (_, leaf_hash) = stwo_merkle_leaf();
    assert_eq!(MerkleHasher::<felt252>::hash_leaf(array![0, 1].span()), leaf_hash);
}

#[test]
fn blake2s_digest_from_u256_felts() {
    // Python's int of hashlib.blake2s(b"").digest() as (low, high), and the digest's eight
    // little-endian words (those of blake2s_cases()[0]).
    let digest: Option<Blake2sHash> = MerkleHasher::read_digest(
        array![0x1f55b6482ca1a51e1b250dfd1ed0eef9, 0x69217a3079908094e11121d042354a7c].span(),
    );
    let words = [
        0x307a2169, 0x94809079, 0xd02111e1, 0x7c4a3542, 0x48b6551f, 0x1ea5a12c, 0xfd0d251b,
        0xf9eed01e,
    ];
    assert_eq!(digest, Some(words));
}

/// The calldata form's own range check: a low half ≥ 2^128 (no Python int maps to it).
#[test]
#[should_panic(expected: ('merkle.digest',))]
fn blake2s_digest_low_half_too_big() {
    let case = merkle_blake2s_shared();
    let mut siblings = array![0x100000000000000000000000000000000];
    siblings.append_span(case.siblings.slice(1, case.siblings.len() - 1));
    verify_blake2s(MerkleCase { siblings: siblings.span(), ..case });
}

#[test]
#[should_panic(expected: ('merkle.indices',))]
fn indices_must_increase() {
    check_indices(array![3, 3].span(), 2);
}

#[test]
#[should_panic(expected: ('merkle.indices',))]
fn indices_below_two_to_the_depth() {
    check_indices(array![1, 4].span(), 2);
}

#[test]
#[should_panic(expected: ('merkle.indices',))]
fn indices_not_empty() {
    check_indices(array![].span(), 2);
}
