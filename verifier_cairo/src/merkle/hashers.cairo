//! The two Merkle hashes (mirror of prover/merkle/hashers.py). The hash is chosen by its digest
//! type: `felt252` for Poseidon252, `Blake2sHash` (eight little-endian u32 words) for Blake2s.
//!
//! In calldata a Poseidon digest is its felt; a Blake2s digest (Python: its 32 bytes read
//! big-endian as an int) is that int as Cairo serializes a u256: low 128 bits, then high.

use core::integer::u128_byte_reverse;
use core::poseidon::{hades_permutation, poseidon_hash_span};
use crate::blake2s::{Blake2sHash, blake2s, blake2s_pair};
use crate::bounded_int::u32_words;
use crate::packing::pack_m31s;

/// The hash tags of statements and registry entries (docs/calldata.md, docs/registry.md).
pub const HASH_POSEIDON: felt252 = 1;
pub const HASH_BLAKE2S: felt252 = 2;
/// The Stark prime: a Poseidon252 digest is below it.
pub const STARK_PRIME: u256 = 0x800000000000011000000000000000000000000000000000000000000000001;


/// How many calldata felts a digest of the hash tagged `hash` takes.
pub fn digest_felts(hash: felt252) -> u32 {
    if hash == HASH_POSEIDON {
        Poseidon252MerkleHasher::DIGEST_FELTS
    } else {
        Blake2sMerkleHasher::DIGEST_FELTS
    }
}

/// A digest's calldata felts as one u256 (a Poseidon felt, or a Blake2s digest's low and high
/// halves); `merkle.digest` unless they encode a digest of that hash.
pub fn read_root(hash: felt252, felts: Span<felt252>) -> u256 {
    if hash == HASH_POSEIDON {
        return (*felts[0]).into();
    }
    let low: Option<u128> = (*felts[0]).try_into();
    let high: Option<u128> = (*felts[1]).try_into();
    assert(low.is_some() && high.is_some(), 'merkle.digest');
    u256 { low: low.unwrap(), high: high.unwrap() }
}

/// A Blake2s root kept as a u256 (`read_root`) as the eight words the hash works on.
pub fn blake2s_root(root: u256) -> Blake2sHash {
    Blake2sMerkleHasher::read_digest(array![root.low.into(), root.high.into()].span()).unwrap()
}

pub trait MerkleHasher<D> {
    /// How many calldata felts one digest takes.
    const DIGEST_FELTS: u32;
    /// The digest of a row of canonical M31 values.
    fn hash_leaf(row: Span<u32>) -> D;
    fn hash_node(left: D, right: D) -> D;
    /// A digest from its `DIGEST_FELTS` calldata felts; None when they encode no digest this
    /// hash can output (Python: `is_digest`).
    fn read_digest(felts: Span<felt252>) -> Option<D>;
    /// `read_digest` of the next `DIGEST_FELTS` felts, taken off `felts` (a sibling stream);
    /// None when fewer are left.
    fn take_digest(ref felts: Span<felt252>) -> Option<Option<D>>;
}

/// Leaf = poseidon_hash_span(row packed 8 M31 per felt); node = poseidon_hash(left, right):
/// STWO's nodes "values, no children" and "children, no values". Every felt is a digest.
pub impl Poseidon252MerkleHasher of MerkleHasher<felt252> {
    const DIGEST_FELTS: u32 = 1;

    fn hash_leaf(row: Span<u32>) -> felt252 {
        poseidon_hash_span(pack_m31s(row).span())
    }

    fn hash_node(left: felt252, right: felt252) -> felt252 {
        let (digest, _, _) = hades_permutation(left, right, 2);
        digest
    }

    fn read_digest(felts: Span<felt252>) -> Option<felt252> {
        Some(*felts[0])
    }

    fn take_digest(ref felts: Span<felt252>) -> Option<Option<felt252>> {
        match felts.pop_front() {
            Some(felt) => Some(Some(*felt)),
            None => None,
        }
    }
}

/// Leaf = Blake2s(LE32 of the row); node = Blake2s(left ‖ right).
pub impl Blake2sMerkleHasher of MerkleHasher<Blake2sHash> {
    const DIGEST_FELTS: u32 = 2;

    fn hash_leaf(row: Span<u32>) -> Blake2sHash {
        blake2s(row)
    }

    fn hash_node(left: Blake2sHash, right: Blake2sHash) -> Blake2sHash {
        blake2s_pair(left, right)
    }

    /// `high` is digest bytes 0–15 read big-endian, so its byte reversal is those bytes read
    /// little-endian: words 0–3, least significant first. `low` gives words 4–7 alike.
    fn read_digest(felts: Span<felt252>) -> Option<Blake2sHash> {
        blake2s_digest(*felts[0], *felts[1])
    }

    fn take_digest(ref felts: Span<felt252>) -> Option<Option<Blake2sHash>> {
        match felts.multi_pop_front::<2>() {
            Some(pair) => {
                let [low, high] = pair.unbox();
                Some(blake2s_digest(low, high))
            },
            None => None,
        }
    }
}

/// The digest whose calldata halves are `low`, `high` (`Blake2sMerkleHasher::read_digest`).
fn blake2s_digest(low: felt252, high: felt252) -> Option<Blake2sHash> {
    let low: u128 = low.try_into()?;
    let high: u128 = high.try_into()?;
    let [w0, w1, w2, w3] = u32_words(u128_byte_reverse(high));
    let [w4, w5, w6, w7] = u32_words(u128_byte_reverse(low));
    Some([w0, w1, w2, w3, w4, w5, w6, w7])
}
