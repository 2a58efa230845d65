//! Eight 31-bit limbs per felt252 (mirror of the packing in prover/channels/poseidon.py).
//!
//! One split serves both readers of that layout: the calldata reader unpacks matrix words and
//! QM31 coefficients with it, and the channel takes its base draws from the same limbs. The
//! Poseidon Merkle leaf hash packs rows the same way (`pack_m31s`).

const SHIFT_27: NonZero<u128> = 0x8000000;
const SHIFT_31: NonZero<u128> = 0x80000000;
const SHIFT_58: NonZero<u128> = 0x400000000000000;
const SHIFT_62: NonZero<u128> = 0x4000000000000000;
const SHIFT_120: NonZero<u128> = 0x1000000000000000000000000000000;
const SHIFT_124: NonZero<u128> = 0x10000000000000000000000000000000;

/// `x = top·2^248 + l0·2^217 + l1·2^186 + … + l7`: returns `top` (< 16, as x < 2^252) and the
/// limbs big-endian, each < 2^31.
///
/// felt252 → (high, low) u128 halves puts the boundary inside l3 (27 bits in `high`, 4 in
/// `low`), so l3 is rebuilt from its two parts; eight u128 divisions in all.
pub fn split_felt252(x: felt252) -> (felt252, [felt252; 8]) {
    let x: u256 = x.into();
    // low = l3_lo·2^124 + l4·2^93 + l5·2^62 + l6·2^31 + l7
    let (l3_lo, low_limbs) = DivRem::div_rem(x.low, SHIFT_124);
    let (l45, l67) = DivRem::div_rem(low_limbs, SHIFT_62);
    let (l4, l5) = DivRem::div_rem(l45, SHIFT_31);
    let (l6, l7) = DivRem::div_rem(l67, SHIFT_31);
    // high = top·2^120 + l0·2^89 + l1·2^58 + l2·2^27 + l3_hi
    let (top, high_limbs) = DivRem::div_rem(x.high, SHIFT_120);
    let (l01, l23) = DivRem::div_rem(high_limbs, SHIFT_58);
    let (l0, l1) = DivRem::div_rem(l01, SHIFT_31);
    let (l2, l3_hi) = DivRem::div_rem(l23, SHIFT_27);
    let l3: felt252 = l3_hi.into() * 16 + l3_lo.into();
    (top.into(), [l0.into(), l1.into(), l2.into(), l3, l4.into(), l5.into(), l6.into(), l7.into()])
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
