//! The transcript steps the PCS prover and verifier share (mirror of prover/pcs/transcript.py):
//! the statement, the merge coefficients, the query positions.

use crate::blake2s::Blake2sHash;
use crate::channels::base::Channel;
use crate::channels::blake2s::{Blake2sChannel, Blake2sChannelTrait};
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::fields::qm31::QM31;
use crate::merkle::hashers::{HASH_POSEIDON, blake2s_root};
use super::params::PcsParams;
use super::proof::{Claim, PolyStatement};
use super::queries::pow2;

/// Where an opening's queries come from: the channel's digest after the grinding nonce (the
/// queries are its first draws), of either channel (Python `QueryPhase.query_seed`).
#[derive(Copy, Drop, Serde, PartialEq, Debug)]
pub enum QuerySeed {
    Poseidon252: felt252,
    Blake2s: Blake2sHash,
}

/// What the PCS needs of a channel beyond `Channel`: absorbing a Merkle root of either hash
/// (Python `merkle.hashers.mix_root`) and the seed its queries are drawn from.
pub trait PcsChannel<C> {
    fn mix_root(ref channel: C, hash: felt252, root: u256);
    fn query_seed(channel: @C) -> QuerySeed;
}

/// A Poseidon root as one felt, a Blake2s root as its eight little-endian u32 words.
pub impl Poseidon252PcsChannel of PcsChannel<Poseidon252Channel> {
    fn mix_root(ref channel: Poseidon252Channel, hash: felt252, root: u256) {
        if hash == HASH_POSEIDON {
            channel.mix_root(root.try_into().unwrap());
        } else {
            channel.mix_u32s(blake2s_root(root).span());
        }
    }

    fn query_seed(channel: @Poseidon252Channel) -> QuerySeed {
        QuerySeed::Poseidon252(channel.digest())
    }
}

/// Either root as its 32 big-endian bytes.
pub impl Blake2sPcsChannel of PcsChannel<Blake2sChannel> {
    fn mix_root(ref channel: Blake2sChannel, hash: felt252, root: u256) {
        channel.mix_root(blake2s_root(root));
    }

    fn query_seed(channel: @Blake2sChannel) -> QuerySeed {
        QuerySeed::Blake2s(*channel.digest)
    }
}

/// ASCII "cairnPCS" as a u64.
pub const PCS_TAG: u64 = 0x636169726e504353;

/// The statement's start: the tag, the parameters and the number of polynomials. Then per
/// polynomial `absorb_poly`. The caller mixed the roots already, before deriving the claims'
/// points; they are mixed again so the opening is bound to its statement whatever the caller
/// did.
pub fn absorb_head<C, +Drop<C>, +Channel<C>>(ref channel: C, params: @PcsParams, n_polys: u32) {
    channel.mix_u64(PCS_TAG);
    channel
        .mix_u32s(
            array![
                *params.log_blowup, *params.log_arity, *params.n_queries, *params.pow_bits,
                n_polys,
            ]
                .span(),
        );
}

/// One polynomial of the statement: its root, size and claims (points and values).
pub fn absorb_poly<C, +Drop<C>, +Channel<C>, +PcsChannel<C>>(
    ref channel: C, hash: felt252, root: u256, n_vars: u32, claims: Span<Claim>,
) {
    PcsChannel::mix_root(ref channel, hash, root);
    channel.mix_u32s(array![n_vars, claims.len()].span());
    for claim in claims {
        let mut felts = array![];
        felts.append_span(*claim.point);
        felts.append(*claim.value);
        channel.mix_felts(felts.span());
    }
}

/// The common point when no merge is needed: one claim per polynomial, every point the suffix
/// of the largest polynomial's point (the first of the largest, as Python's `max`).
pub fn aligned_point(statement: Span<PolyStatement>) -> Option<Span<QM31>> {
    let mut longest: Span<QM31> = array![].span();
    let mut found = false;
    for poly in statement {
        if (*poly.claims).len() != 1 {
            return None;
        }
        let point = *(*poly.claims)[0].point;
        if !found || point.len() > longest.len() {
            longest = point;
            found = true;
        }
    }
    for poly in statement {
        let point = *(*poly.claims)[0].point;
        if point != longest.slice(longest.len() - point.len(), point.len()) {
            return None;
        }
    }
    Some(longest)
}

/// n_queries positions in [0, 2^log_size), one u32 word each (log_size ≤ 31), in draw order.
pub fn draw_queries<C, +Drop<C>, +Channel<C>>(
    ref channel: C, n_queries: u32, log_size: u32,
) -> Span<u32> {
    let modulus: NonZero<u32> = pow2(log_size).try_into().unwrap();
    let mut out = array![];
    while out.len() < n_queries {
        for word in channel.draw_u32s() {
            if out.len() < n_queries {
                let (_, position) = DivRem::div_rem(word, modulus);
                out.append(position);
            }
        }
    }
    out.span()
}

/// The queries of a seed, from a channel of its kind.
pub fn seeded_queries(seed: QuerySeed, n_queries: u32, log_size: u32) -> Span<u32> {
    match seed {
        QuerySeed::Poseidon252(digest) => {
            let mut channel = Poseidon252ChannelTrait::new(digest);
            draw_queries(ref channel, n_queries, log_size)
        },
        QuerySeed::Blake2s(digest) => {
            let mut channel = Blake2sChannelTrait::new(digest);
            draw_queries(ref channel, n_queries, log_size)
        },
    }
}
