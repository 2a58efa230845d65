//! Poseidon252Channel: the Fiat–Shamir transcript of every sum-check (mirror of
//! prover/channels/poseidon252.py, byte-compatible with stwo-cairo; docs/channels.md).
//!
//! Every mix replaces the digest and resets the draw counter; every draw permutes
//! (digest, n_draws, 3), whose capacity word 3 no mix uses (they use 2, or 0 in the sponge).

use core::poseidon::{hades_permutation, poseidon_hash_span};
use crate::fields::m31::{M31, M31Trait};
use crate::fields::qm31::{QM31, QM31Trait};
use crate::bounded_int::{Limb, felt252_limbs, limb_mod_p};
use super::base::Channel;

const SHIFT_32: NonZero<u128> = 0x100000000;
const U32_SHIFT: felt252 = 0x100000000;
const U32S_PER_FELT: u32 = 7;
const LENGTH_SHIFT: felt252 = 0x100000000000000000000000000000000000000000000000000000000000000;
const POW_PREFIX: felt252 = 0x12345678;

#[derive(Copy, Drop, Default, Serde)]
pub struct Poseidon252Channel {
    digest: felt252,
    n_draws: felt252,
}

#[generate_trait]
pub impl Poseidon252ChannelImpl of Poseidon252ChannelTrait {
    /// A channel whose transcript starts from `digest` (the default starts from 0).
    fn new(digest: felt252) -> Poseidon252Channel {
        Poseidon252Channel { digest, n_draws: 0 }
    }

    fn digest(self: @Poseidon252Channel) -> felt252 {
        *self.digest
    }

    /// Absorbs one felt252 (a commitment, a domain tag).
    fn mix_root(ref self: Poseidon252Channel, root: felt252) {
        let (digest, _, _) = hades_permutation(self.digest, root, 2);
        self.update(digest);
    }

    /// Cairn's extension: absorbs M31 values already packed 8 per felt (docs/calldata.md). The
    /// calldata carries matrices in exactly this form, so its words are hashed as they are.
    fn mix_m31s(ref self: Poseidon252Channel, words: Span<felt252>) {
        let mut felts = array![self.digest];
        felts.append_span(words);
        self.update(poseidon_hash_span(felts.span()));
    }
}

pub impl Poseidon252ChannelBase of Channel<Poseidon252Channel> {
    fn mix_u64(ref self: Poseidon252Channel, value: u64) {
        self.mix_root(value.into());
    }

    /// The list packed by `pack_qm31s`, then hashed after the digest.
    fn mix_felts(ref self: Poseidon252Channel, xs: Span<QM31>) {
        let mut felts = array![self.digest];
        pack_qm31s(ref felts, xs);
        self.update(poseidon_hash_span(felts.span()));
    }

    /// 7 u32 per felt, big-endian; a partial last chunk is zero-padded and carries its length
    /// at 2^248, so lists of different lengths never pack alike.
    fn mix_u32s(ref self: Poseidon252Channel, words: Span<u32>) {
        let mut felts = array![self.digest];
        let mut words = words;
        while !words.is_empty() {
            let count = core::cmp::min(U32S_PER_FELT, words.len());
            let mut acc: felt252 = 0;
            for w in words.slice(0, count) {
                acc = acc * U32_SHIFT + (*w).into();
            }
            for _ in count..U32S_PER_FELT {
                acc = acc * U32_SHIFT;
            }
            words = words.slice(count, words.len() - count);
            felts.append(acc + (count % U32S_PER_FELT).into() * LENGTH_SHIFT);
        }
        self.update(poseidon_hash_span(felts.span()));
    }

    /// The 7 low little-endian u32 words of one draw (the top word is not uniform).
    fn draw_u32s(ref self: Poseidon252Channel) -> Array<u32> {
        let s: u256 = self.draw_felt252().into();
        let mut out = array![];
        append_u32s(ref out, s.low, 4);
        append_u32s(ref out, s.high, 3);
        out
    }

    /// Whether the low 128 bits of H(H(0x12345678, digest, n_bits), nonce) have at least
    /// `n_bits` trailing zeros (n_bits < 64), at the current digest; the caller then mixes the
    /// nonce with `mix_u64`.
    fn verify_pow_nonce(self: @Poseidon252Channel, n_bits: u32, nonce: u64) -> bool {
        let prefixed = poseidon_hash_span(array![POW_PREFIX, *self.digest, n_bits.into()].span());
        let (h, _, _) = hades_permutation(prefixed, nonce.into(), 2);
        let h: u256 = h.into();
        let modulus: NonZero<u128> = core::num::traits::Pow::pow(2_u128, n_bits)
            .try_into()
            .unwrap();
        let (_, low_bits) = DivRem::div_rem(h.low, modulus);
        low_bits == 0
    }

    /// Eight 31-bit limbs of one draw, least significant first, each reduced mod p (a limb
    /// 2^31 - 1 becomes 0); the top 4 bits are dropped.
    fn draw_base_felts(ref self: Poseidon252Channel) -> [M31; 8] {
        let (_, [l7, l6, l5, l4, l3, l2, l1, l0]) = felt252_limbs(self.draw_felt252());
        [
            base(l0), base(l1), base(l2), base(l3), base(l4), base(l5), base(l6), base(l7),
        ]
    }
}

/// A limb reduced mod p (2^31 − 1 is 0), free of range checks.
fn base(x: Limb) -> M31 {
    M31Trait::from_residue(limb_mod_p(x))
}

/// Appends the `count` low u32 words of `x`, least significant first.
fn append_u32s(ref out: Array<u32>, x: u128, count: u32) {
    let mut x = x;
    for _ in 0..count {
        let (rest, word) = DivRem::div_rem(x, SHIFT_32);
        out.append(word.try_into().unwrap());
        x = rest;
    }
}

#[generate_trait]
impl Poseidon252ChannelInternal of Poseidon252ChannelInternalTrait {
    fn update(ref self: Poseidon252Channel, digest: felt252) {
        self.digest = digest;
        self.n_draws = 0;
    }

    fn draw_felt252(ref self: Poseidon252Channel) -> felt252 {
        let (s, _, _) = hades_permutation(self.digest, self.n_draws, 3);
        self.n_draws += 1;
        s
    }
}

/// Appends `xs` packed as `mix_felts` absorbs them: pairs as 1‖x‖y (a 2^248 marker), an odd
/// last one as 1‖x (a 2^124 marker), so no two lists pack alike.
pub fn pack_qm31s(ref felts: Array<felt252>, xs: Span<QM31>) {
    let mut xs = xs;
    while let Some(pair) = xs.multi_pop_front::<2>() {
        let [x, y] = pair.unbox();
        felts.append(y.pack(x.pack(1)));
    }
    if let Some(x) = xs.pop_front() {
        felts.append(x.pack(1));
    }
}
