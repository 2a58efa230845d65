//! Blake2sChannel: the transcript of the lookup sub-proofs and the witness opening (mirror of
//! prover/channels/blake2s.py, byte-compatible with stwo-cairo's Blake2s channel;
//! docs/channels.md). Every message is hashed after the 32-byte digest, as little-endian words.

use crate::blake2s::{Blake2sHash, blake2s, blake2s_draw};
use crate::bounded_int::{BelowTwoP, below_two_p, residue_below_two_p};
use crate::fields::m31::{M31, M31Trait};
use crate::fields::qm31::QM31;
use super::base::Channel;

const POW_PREFIX: u32 = 0x12345678;
const SHIFT_32: u64 = 0x100000000;

#[derive(Drop, Copy, Serde)]
pub struct Blake2sChannel {
    pub digest: Blake2sHash,
    n_draws: u32,
}

pub impl Blake2sChannelDefault of Default<Blake2sChannel> {
    fn default() -> Blake2sChannel {
        Blake2sChannelTrait::new([0; 8])
    }
}

#[generate_trait]
pub impl Blake2sChannelImpl of Blake2sChannelTrait {
    /// A channel whose transcript starts from `digest`.
    fn new(digest: Blake2sHash) -> Blake2sChannel {
        Blake2sChannel { digest, n_draws: 0 }
    }

    /// Absorbs a 32-byte digest (a Merkle root, a tag's hash, a parent transcript's digest).
    fn mix_root(ref self: Blake2sChannel, root: Blake2sHash) {
        self.mix_u32s(root.span());
    }

    /// One draw's eight words: H(digest ‖ n_draws as 4 bytes ‖ one zero byte).
    fn draw_words(ref self: Blake2sChannel) -> Blake2sHash {
        let words = blake2s_draw(self.digest, self.n_draws);
        self.n_draws += 1;
        words
    }
}

/// A draw's eight words if all are below 2p (else the draw is rejected), range-check free
/// (`bounded_int::below_two_p`).
fn all_below_two_p(w: Blake2sHash) -> Option<[BelowTwoP; 8]> {
    let [w0, w1, w2, w3, w4, w5, w6, w7] = w;
    Some(
        [
            below_two_p(w0)?, below_two_p(w1)?, below_two_p(w2)?, below_two_p(w3)?,
            below_two_p(w4)?, below_two_p(w5)?, below_two_p(w6)?, below_two_p(w7)?,
        ],
    )
}

/// The first draw whose eight words are all below 2p (STWO's rejection sampling).
fn draw_below_two_p(ref channel: Blake2sChannel) -> [BelowTwoP; 8] {
    loop {
        if let Some(x) = all_below_two_p(channel.draw_words()) {
            break x;
        }
    }
}

/// A word below 2p as its M31 value.
fn reduce(x: BelowTwoP) -> M31 {
    M31Trait::from_residue(residue_below_two_p(x))
}

pub impl Blake2sChannelBase of Channel<Blake2sChannel> {
    fn mix_felts(ref self: Blake2sChannel, xs: Span<QM31>) {
        let [d0, d1, d2, d3, d4, d5, d6, d7] = self.digest;
        let mut data = array![d0, d1, d2, d3, d4, d5, d6, d7];
        for x in xs {
            data.append((*x.a).into());
            data.append((*x.b).into());
            data.append((*x.c).into());
            data.append((*x.d).into());
        }
        self.digest = blake2s(data.span());
        self.n_draws = 0;
    }

    fn mix_u32s(ref self: Blake2sChannel, words: Span<u32>) {
        let [d0, d1, d2, d3, d4, d5, d6, d7] = self.digest;
        let mut data = array![d0, d1, d2, d3, d4, d5, d6, d7];
        data.append_span(words);
        self.digest = blake2s(data.span());
        self.n_draws = 0;
    }

    fn mix_u64(ref self: Blake2sChannel, value: u64) {
        let (high, low) = DivRem::div_rem(value, SHIFT_32.try_into().unwrap());
        self.mix_u32s(array![low.try_into().unwrap(), high.try_into().unwrap()].span());
    }

    /// Rejection sampling: a draw is used only when all 8 words are below 2p. Unrolled, as
    /// every sum-check round draws.
    fn draw_base_felts(ref self: Blake2sChannel) -> [M31; 8] {
        let [x0, x1, x2, x3, x4, x5, x6, x7] = draw_below_two_p(ref self);
        [
            reduce(x0), reduce(x1), reduce(x2), reduce(x3), reduce(x4), reduce(x5), reduce(x6),
            reduce(x7),
        ]
    }

    /// The default's draw (all 8 words below 2p), reducing only the four it keeps.
    fn draw_secure_felt(ref self: Blake2sChannel) -> QM31 {
        let [x0, x1, x2, x3, _, _, _, _] = draw_below_two_p(ref self);
        QM31 { a: reduce(x0), b: reduce(x1), c: reduce(x2), d: reduce(x3) }
    }

    /// H(digest ‖ n_draws as 4 bytes ‖ one zero byte), as eight words.
    fn draw_u32s(ref self: Blake2sChannel) -> Array<u32> {
        self.draw_words().span().into()
    }

    /// The first 8 bytes of H(H(0x12345678 ‖ 12 zero bytes ‖ digest ‖ n_bits) ‖ nonce), read
    /// little-endian, have at least `n_bits` trailing zeros (n_bits < 64).
    fn verify_pow_nonce(self: @Blake2sChannel, n_bits: u32, nonce: u64) -> bool {
        let mut data = array![POW_PREFIX, 0, 0, 0];
        data.append_span(self.digest.span());
        data.append(n_bits);
        let prefix = blake2s(data.span());
        let mut data: Array<u32> = prefix.span().into();
        let (high, low) = DivRem::div_rem(nonce, SHIFT_32.try_into().unwrap());
        data.append(low.try_into().unwrap());
        data.append(high.try_into().unwrap());
        let [w0, w1, _, _, _, _, _, _] = blake2s(data.span());
        let low_bits: u64 = w0.into() + w1.into() * SHIFT_32;
        let modulus: NonZero<u64> = core::num::traits::Pow::pow(2_u64, n_bits)
            .try_into()
            .unwrap();
        let (_, rest) = DivRem::div_rem(low_bits, modulus);
        rest == 0
    }
}
