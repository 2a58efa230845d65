//! Blake2s-256 over u32 words in plain Cairo (RFC 7693); Python: `hashlib.blake2s` of the
//! words' little-endian bytes.
//!
//! Plain Cairo because the `core::blake` builtins cannot reach mainnet through Cairo 2.16: the
//! audited libfunc list admits `blake2s_compress` / `blake2s_finalize` only in Sierra ≥ 1.8.0,
//! which starknet-compile 2.16 does not emit (docs/cairo-verifier.md, "Blake2s").

use core::num::traits::WrappingAdd;

/// A Blake2s-256 digest as eight little-endian u32 words: Python's
/// `struct.unpack("<8I", hashlib.blake2s(data).digest())`.
pub type Blake2sHash = [u32; 8];

const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB,
    0x5BE0CD19,
];
/// IV[0] ^ 0x01010020 (digest length 32, no key, fanout 1, depth 1) then IV[1..8]: the state
/// before the first block, set up from the parameter block.
const INITIAL_STATE: [u32; 8] = [
    0x6B08E647, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB,
    0x5BE0CD19,
];
const BLOCK_WORDS: u32 = 16;
const BLOCK_BYTES: u32 = 64;

/// Blake2s-256 of `words` read as their little-endian bytes (4·len bytes).
pub fn blake2s(words: Span<u32>) -> Blake2sHash {
    let mut state = INITIAL_STATE;
    let mut words = words;
    let mut byte_count: u32 = 0;
    // Every block but the last is compressed as not final; the last one, even when full, as
    // final, zero-padded and counting only the bytes actually hashed.
    while words.len() > BLOCK_WORDS {
        let block = words.multi_pop_front::<16>().unwrap();
        byte_count += BLOCK_BYTES;
        state = compress(state, (*block).unbox(), byte_count, false);
    }
    byte_count += 4 * words.len();
    let mut last = array![];
    last.append_span(words);
    for _ in words.len()..BLOCK_WORDS {
        last.append(0);
    }
    let last: @Box<[u32; 16]> = last.span().try_into().unwrap();
    compress(state, (*last).unbox(), byte_count, true)
}

/// Blake2s-256 of `left ‖ right` (64 bytes, one final block): a Merkle node.
pub fn blake2s_pair(left: Blake2sHash, right: Blake2sHash) -> Blake2sHash {
    let [l0, l1, l2, l3, l4, l5, l6, l7] = left;
    let [r0, r1, r2, r3, r4, r5, r6, r7] = right;
    let block = [l0, l1, l2, l3, l4, l5, l6, l7, r0, r1, r2, r3, r4, r5, r6, r7];
    compress(INITIAL_STATE, block, BLOCK_BYTES, true)
}

/// The compression function F: ten rounds, the message words reordered by SIGMA before each.
/// Messages here stay below 2^32 bytes, so the counter's high word t1 is 0.
fn compress(state: [u32; 8], block: [u32; 16], byte_count: u32, last: bool) -> [u32; 8] {
    let [h0, h1, h2, h3, h4, h5, h6, h7] = state;
    let [i0, i1, i2, i3, i4, i5, i6, i7] = IV;
    let f0 = if last {
        ~i6
    } else {
        i6
    };
    let v = [h0, h1, h2, h3, h4, h5, h6, h7, i0, i1, i2, i3, i4 ^ byte_count, i5, f0, i7];
    let [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15] = block;
    let v = round(v, [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15]);
    let v = round(v, [m14, m10, m4, m8, m9, m15, m13, m6, m1, m12, m0, m2, m11, m7, m5, m3]);
    let v = round(v, [m11, m8, m12, m0, m5, m2, m15, m13, m10, m14, m3, m6, m7, m1, m9, m4]);
    let v = round(v, [m7, m9, m3, m1, m13, m12, m11, m14, m2, m6, m5, m10, m4, m0, m15, m8]);
    let v = round(v, [m9, m0, m5, m7, m2, m4, m10, m15, m14, m1, m11, m12, m6, m8, m3, m13]);
    let v = round(v, [m2, m12, m6, m10, m0, m11, m8, m3, m4, m13, m7, m5, m15, m14, m1, m9]);
    let v = round(v, [m12, m5, m1, m15, m14, m13, m4, m10, m0, m7, m6, m3, m9, m2, m8, m11]);
    let v = round(v, [m13, m11, m7, m14, m12, m1, m3, m9, m5, m0, m15, m4, m8, m6, m2, m10]);
    let v = round(v, [m6, m15, m14, m9, m11, m3, m0, m8, m12, m2, m13, m7, m1, m4, m10, m5]);
    let v = round(v, [m10, m2, m8, m4, m7, m6, m1, m5, m15, m11, m9, m14, m3, m12, m13, m0]);
    let [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15] = v;
    [
        h0 ^ v0 ^ v8, h1 ^ v1 ^ v9, h2 ^ v2 ^ v10, h3 ^ v3 ^ v11, h4 ^ v4 ^ v12, h5 ^ v5 ^ v13,
        h6 ^ v6 ^ v14, h7 ^ v7 ^ v15,
    ]
}

/// One round: G on the four columns, then on the four diagonals, with message words taken in
/// order (the caller has applied this round's SIGMA).
fn round(v: [u32; 16], m: [u32; 16]) -> [u32; 16] {
    let [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15] = v;
    let [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15] = m;
    let (v0, v4, v8, v12) = g(v0, v4, v8, v12, m0, m1);
    let (v1, v5, v9, v13) = g(v1, v5, v9, v13, m2, m3);
    let (v2, v6, v10, v14) = g(v2, v6, v10, v14, m4, m5);
    let (v3, v7, v11, v15) = g(v3, v7, v11, v15, m6, m7);
    let (v0, v5, v10, v15) = g(v0, v5, v10, v15, m8, m9);
    let (v1, v6, v11, v12) = g(v1, v6, v11, v12, m10, m11);
    let (v2, v7, v8, v13) = g(v2, v7, v8, v13, m12, m13);
    let (v3, v4, v9, v14) = g(v3, v4, v9, v14, m14, m15);
    [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15]
}

/// The mixing function G (rotations 16, 12, 8, 7).
#[inline(always)]
fn g(a: u32, b: u32, c: u32, d: u32, x: u32, y: u32) -> (u32, u32, u32, u32) {
    let a = a.wrapping_add(b).wrapping_add(x);
    let d = rotr(d ^ a, 0x10000, 0x10000);
    let c = c.wrapping_add(d);
    let b = rotr(b ^ c, 0x1000, 0x100000);
    let a = a.wrapping_add(b).wrapping_add(y);
    let d = rotr(d ^ a, 0x100, 0x1000000);
    let c = c.wrapping_add(d);
    let b = rotr(b ^ c, 0x80, 0x2000000);
    (a, b, c, d)
}

/// x rotated right by n bits, given 2^n and 2^(32 - n): the low n bits move to the top.
#[inline(always)]
fn rotr(x: u32, low_bits: NonZero<u32>, shift: felt252) -> u32 {
    let (high, low) = DivRem::div_rem(x, low_bits);
    let rotated: felt252 = high.into() + low.into() * shift;
    rotated.try_into().unwrap()
}
