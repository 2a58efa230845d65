//! Eight 31-bit limbs per felt252 (mirror of the packing in prover/channels/poseidon.py).
//!
//! One split serves both readers of that layout: the calldata reader unpacks matrix words and
//! QM31 coefficients with it, and the channel takes its base draws from the same limbs. The
//! Poseidon Merkle leaf hash packs rows the same way (`pack_m31s`).

use crate::bounded_int::{Limb, felt252_limbs, upcast};

/// A limb's value as the caller keeps it: a felt252 (matrices, QM31 coefficients) or a u32 (a
/// Blake2s leaf's words); both free of range checks.
pub trait LimbValue<T> {
    fn of_limb(x: Limb) -> T;
    /// A constant's value (p, 0) to compare limbs with.
    fn of_u32(x: u32) -> T;
}

pub impl LimbFelt252 of LimbValue<felt252> {
    fn of_limb(x: Limb) -> felt252 {
        upcast(x)
    }

    fn of_u32(x: u32) -> felt252 {
        x.into()
    }
}

pub impl LimbU32 of LimbValue<u32> {
    fn of_limb(x: Limb) -> u32 {
        upcast(x)
    }

    fn of_u32(x: u32) -> u32 {
        x
    }
}

/// `x = top·2^248 + l0·2^217 + l1·2^186 + … + l7`: returns `top` (< 16, as x < 2^252) and the
/// limbs big-endian, each < 2^31 (`felt252_limbs`).
pub fn split_felt252<T, impl V: LimbValue<T>, +Drop<T>>(x: felt252) -> (felt252, [T; 8]) {
    let (top, [l0, l1, l2, l3, l4, l5, l6, l7]) = felt252_limbs(x);
    (
        upcast(top),
        [
            V::of_limb(l0), V::of_limb(l1), V::of_limb(l2), V::of_limb(l3), V::of_limb(l4),
            V::of_limb(l5), V::of_limb(l6), V::of_limb(l7),
        ],
    )
}

const M31_PER_WORD: u32 = 8;
const LIMB_SHIFT: felt252 = 0x80000000;
const LENGTH_SHIFT: felt252 = 0x100000000000000000000000000000000000000000000000000000000000000;

/// Canonical M31 values packed 8 per felt, big-endian 31-bit limbs; a last word of c < 8 values
/// carries c at 2^248 (Python `pack_m31s`: STWO's Merkle-leaf packing).
pub fn pack_m31s(values: Span<u32>) -> Array<felt252> {
    let mut values = values;
    let mut words = array![];
    while !values.is_empty() {
        let count = core::cmp::min(M31_PER_WORD, values.len());
        let mut word: felt252 = 0;
        for v in values.slice(0, count) {
            word = word * LIMB_SHIFT + (*v).into();
        }
        values = values.slice(count, values.len() - count);
        words.append(if count == M31_PER_WORD {
            word
        } else {
            word + count.into() * LENGTH_SHIFT
        });
    }
    words
}
