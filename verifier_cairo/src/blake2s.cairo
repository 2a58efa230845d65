//! Blake2s-256 over u32 words (RFC 7693) on the `core::blake` builtins; Python:
//! `hashlib.blake2s` of the words' little-endian bytes.
//!
//! `blake2s_compress` / `blake2s_finalize` are admitted by the audited libfunc list from Sierra
//! 1.8.0 on (Cairo 2.17), and cost a few thousand L2 gas per block against ≈3·10^6 in plain
//! Cairo (docs/cairo-verifier.md, "Blake2s").

use core::blake::{blake2s_compress, blake2s_finalize};

/// A Blake2s-256 digest as eight little-endian u32 words: Python's
/// `struct.unpack("<8I", hashlib.blake2s(data).digest())`.
pub type Blake2sHash = [u32; 8];

/// IV[0] ^ 0x01010020 (digest length 32, no key, fanout 1, depth 1) then IV[1..8]: the chaining
/// value before the first block, set up from the parameter block.
const INITIAL_STATE: [u32; 8] = [
    0x6B08E647, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB,
    0x5BE0CD19,
];
const BLOCK_WORDS: u32 = 16;
const BLOCK_BYTES: u32 = 64;

/// Blake2s-256 of `words` read as their little-endian bytes (4·len bytes).
pub fn blake2s(words: Span<u32>) -> Blake2sHash {
    blake2s_bytes(words, 4 * words.len())
}

/// Blake2s-256 of the first `n_bytes` little-endian bytes of `words`, whose bytes beyond them
/// are zero (a message whose length is not a multiple of 4).
pub fn blake2s_bytes(words: Span<u32>, n_bytes: u32) -> Blake2sHash {
    let mut state = BoxTrait::new(INITIAL_STATE);
    let mut words = words;
    let mut byte_count: u32 = 0;
    // Every block but the last is compressed as not final; the last one, even when full, is
    // finalized, zero-padded and counting only the bytes actually hashed.
    while words.len() > BLOCK_WORDS {
        let block = words.multi_pop_front::<16>().unwrap();
        byte_count += BLOCK_BYTES;
        state = blake2s_compress(state, byte_count, *block);
    }
    blake2s_finalize(state, n_bytes, BoxTrait::new(padded_block(words))).unbox()
}

/// Blake2s-256 of the 37 bytes `digest ‖ counter ‖ 0x00` (a channel's draw: one final block,
/// no array).
pub fn blake2s_draw(digest: Blake2sHash, counter: u32) -> Blake2sHash {
    let [d0, d1, d2, d3, d4, d5, d6, d7] = digest;
    let block = [d0, d1, d2, d3, d4, d5, d6, d7, counter, 0, 0, 0, 0, 0, 0, 0];
    blake2s_finalize(BoxTrait::new(INITIAL_STATE), 37, BoxTrait::new(block)).unbox()
}

/// The last ≤ 16 words zero-padded to a block, unrolled: an array built in a loop costs
/// several times the compression itself.
fn padded_block(words: Span<u32>) -> [u32; 16] {
    let mut w = words;
    [
        next(ref w), next(ref w), next(ref w), next(ref w), next(ref w), next(ref w), next(ref w),
        next(ref w), next(ref w), next(ref w), next(ref w), next(ref w), next(ref w), next(ref w),
        next(ref w), next(ref w),
    ]
}

#[inline(always)]
fn next(ref words: Span<u32>) -> u32 {
    match words.pop_front() {
        Some(w) => *w,
        None => 0,
    }
}

/// Blake2s-256 of `left ‖ right` (64 bytes, one final block): a Merkle node.
pub fn blake2s_pair(left: Blake2sHash, right: Blake2sHash) -> Blake2sHash {
    let [l0, l1, l2, l3, l4, l5, l6, l7] = left;
    let [r0, r1, r2, r3, r4, r5, r6, r7] = right;
    let block = [l0, l1, l2, l3, l4, l5, l6, l7, r0, r1, r2, r3, r4, r5, r6, r7];
    blake2s_finalize(BoxTrait::new(INITIAL_STATE), BLOCK_BYTES, BoxTrait::new(block)).unbox()
}
