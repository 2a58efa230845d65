//! Eight 31-bit limbs per felt252 (mirror of the packing in prover/channels/poseidon.py).
//!
//! The calldata reader unpacks matrix words and Merkle leaves with `split_felt252`; the
//! channel takes its base draws from the same limbs as bounded integers
//! (`bounded_int::felt252_limbs`). The Poseidon Merkle leaf hash packs rows the same way
//! (`pack_m31s`).

/// `x = top·2^248 + l0·2^217 + l1·2^186 + … + l7`: `top` (< 16, as x < 2^252) and the limbs
/// big-endian, each below 2^31, as felt252s.
///
/// felt252 → (high, low) u128 halves (three range checks), then each limb is its half AND a
/// mask (one bitwise builtin call), divided exactly by its power of two (times the inverse mod
/// the Stark prime: the masked value is a multiple of it); what the masks leave of `high` is
/// `top`. l3 straddles the halves (27 bits in `high`, 4 in `low`). Three range checks and eight
/// bitwise calls, against 27 range checks by bounded-integer division: on devnet a call is
/// charged its most-used resource (docs/cairo-verifier.md, "Accounts and gas"), and the
/// verifier's is range checks.
pub fn split_felt252(x: felt252) -> (felt252, [felt252; 8]) {
    let x: u256 = x.into();
    let (low, high) = (x.low, x.high);
    // low = l3_lo·2^124 + l4·2^93 + l5·2^62 + l6·2^31 + l7
    let l7: felt252 = (low & 0x7fffffff).into();
    let l6: felt252 = (low & 0x3fffffff80000000).into();
    let l5: felt252 = (low & 0x1fffffffc000000000000000).into();
    let l4: felt252 = (low & 0xfffffffe00000000000000000000000).into();
    let low: felt252 = low.into();
    let l3_lo = (low - l4 - l5 - l6 - l7) * INV_2_124;
    // high = top·2^120 + l0·2^89 + l1·2^58 + l2·2^27 + l3_hi
    let l3_hi: felt252 = (high & 0x7ffffff).into();
    let l2: felt252 = (high & 0x3fffffff8000000).into();
    let l1: felt252 = (high & 0x1fffffffc00000000000000).into();
    let l0: felt252 = (high & 0xfffffffe0000000000000000000000).into();
    let high: felt252 = high.into();
    let top = (high - l0 - l1 - l2 - l3_hi) * INV_2_120;
    (
        top,
        [
            l0 * INV_2_89, l1 * INV_2_58, l2 * INV_2_27, l3_hi * 16 + l3_lo, l4 * INV_2_93,
            l5 * INV_2_62, l6 * INV_2_31, l7,
        ],
    )
}

/// 2^-k mod the Stark prime.
const INV_2_31: felt252 = 0x7fffffff0000010ffffffde0000000000000000000000000000000000000001;
const INV_2_62: felt252 = 0x800000000000010dfffffffffffffbc00000000000000000000000000000001;
const INV_2_93: felt252 = 0x800000000000010ffffffffbfffffffffffff78000000000000000000000001;
const INV_2_124: felt252 = 0x800000000000010ffffffffffffffff7ffffffffffffef00000000000000001;
const INV_2_27: felt252 = 0x7ffffff00000010fffffde00000000000000000000000000000000000000001;
const INV_2_58: felt252 = 0x80000000000000efffffffffffffbc000000000000000000000000000000001;
const INV_2_89: felt252 = 0x800000000000010fffffffbfffffffffffff780000000000000000000000001;
const INV_2_120: felt252 = 0x800000000000010fffffffffffffff7ffffffffffffef000000000000000001;

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
