//! A Blake2s sub-transcript bound both ways to the Poseidon252 walk (mirror of
//! prover/channels/fork.py; docs/channels.md, "Fork and join"): the fork first absorbs its
//! domain tag's hash and the parent's digest, and the parent's next message is the fork's final
//! digest, so the two transcripts are one hash chain.

use crate::blake2s::{Blake2sHash, blake2s_bytes};
use crate::merkle::hashers::blake2s_root;
use super::base::Channel;
use super::blake2s::{Blake2sChannel, Blake2sChannelTrait};
use super::poseidon252::Poseidon252Channel;

/// A Blake2s channel seeded with blake2s(tag) — `tag` a short string of `tag_len` bytes (a
/// short string does not carry its length: leading zero bytes would be lost) — then the
/// parent's digest as 32 big-endian bytes (the digest alone: a fork may run in another class).
pub fn fork(parent: felt252, tag: felt252, tag_len: u32) -> Blake2sChannel {
    let mut child: Blake2sChannel = Default::default();
    child.mix_root(blake2s_bytes(string_words(tag.into(), tag_len), tag_len));
    // A u256 as its 32 big-endian bytes' words: what `blake2s_root` makes of a root.
    child.mix_root(blake2s_root(parent.into()));
    child
}

/// The last `len` big-endian bytes of `x` (a short string's) as little-endian u32 words, the
/// last word zero-padded.
fn string_words(x: u256, len: u32) -> Span<u32> {
    let mut bytes = array![];
    let mut rest = x;
    for _ in 0..len {
        let (high, low) = DivRem::div_rem(rest, 0x100);
        bytes.append(low);
        rest = high;
    }
    let mut words = array![];
    let mut word: u256 = 0;
    let mut shift: u256 = 1;
    let mut bytes = bytes.span();
    while let Some(byte) = bytes.pop_back() {
        word += *byte * shift;
        shift *= 0x100;
        if shift == 0x100000000 {
            words.append(word.try_into().unwrap());
            word = 0;
            shift = 1;
        }
    }
    if shift != 1 {
        words.append(word.try_into().unwrap());
    }
    words.span()
}

/// The parent absorbs the child's final digest as its eight little-endian words.
pub fn join(ref parent: Poseidon252Channel, child: @Blake2sHash) {
    parent.mix_u32s((*child).span());
}
