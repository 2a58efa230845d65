//! A Blake2s sub-transcript bound both ways to the Poseidon252 walk (mirror of
//! prover/channels/fork.py; docs/channels.md, "Fork and join"): the fork first absorbs its
//! domain tag's hash and the parent's digest, and the parent's next message is the fork's final
//! digest, so the two transcripts are one hash chain.

use crate::blake2s::{Blake2sHash, blake2s};
use super::base::Channel;
use super::blake2s::{Blake2sChannel, Blake2sChannelTrait};
use super::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};

/// A Blake2s channel seeded with blake2s(tag) — `tag` a 16-byte short string — then the
/// parent's digest as 32 big-endian bytes.
pub fn fork(parent: @Poseidon252Channel, tag: felt252) -> Blake2sChannel {
    let mut child: Blake2sChannel = Default::default();
    let [_, _, _, _, t0, t1, t2, t3] = be_words(tag.into());
    child.mix_root(blake2s(array![t0, t1, t2, t3].span()));
    child.mix_root(be_words(parent.digest().into()));
    child
}

/// The parent absorbs the child's final digest as its eight little-endian words.
pub fn join(ref parent: Poseidon252Channel, child: @Blake2sChannel) {
    parent.mix_u32s((*child.digest).span());
}

/// The 32 big-endian bytes of `x` as eight little-endian u32 words (Python
/// `struct.unpack("<8I", x.to_bytes(32, "big"))`).
pub fn be_words(x: u256) -> Blake2sHash {
    let [h0, h1, h2, h3] = chunks(x.high);
    let [l0, l1, l2, l3] = chunks(x.low);
    [h0, h1, h2, h3, l0, l1, l2, l3]
}

/// A u128's four 32-bit chunks from the top, each byte-swapped.
fn chunks(x: u128) -> [u32; 4] {
    let shift: NonZero<u128> = 0x100000000;
    let (x, c3) = DivRem::div_rem(x, shift);
    let (x, c2) = DivRem::div_rem(x, shift);
    let (c0, c1) = DivRem::div_rem(x, shift);
    [swap(c0), swap(c1), swap(c2), swap(c3)]
}

fn swap(chunk: u128) -> u32 {
    let byte: NonZero<u128> = 0x100;
    let (x, b3) = DivRem::div_rem(chunk, byte);
    let (x, b2) = DivRem::div_rem(x, byte);
    let (b0, b1) = DivRem::div_rem(x, byte);
    (b3 * 0x1000000 + b2 * 0x10000 + b1 * 0x100 + b0).try_into().unwrap()
}
