//! The PCS fronts as a class of their own, which `CairnVerifier` calls by library_call
//! (docs/cairo-verifier.md, "Eight classes"): `verify_front` on either channel, and a model
//! walk's witness opening's front step by step (`front.cairo`). With the fronts' code the main
//! contract would exceed mainnet's 81,920-felt bytecode limit. No storage, no side effect.

use starknet::ClassHash;
use crate::channels::blake2s::Blake2sChannel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::layers::call_class;
use crate::pcs::front::{FrontReplay, QueryPhase};
use crate::pcs::params::PcsParams;
use crate::pcs::proof::{Claim, OpeningFront, PolyStatement};

/// The front class as its callers call it: by `layers::call_class`, so that a refused front
/// panics with its check name alone, as if it were verified in place.
#[derive(Copy, Drop)]
pub struct FrontClass {
    pub class_hash: ClassHash,
}

#[generate_trait]
pub impl FrontClassImpl of FrontClassTrait {
    fn poseidon_front(
        self: FrontClass,
        params: PcsParams,
        statement: Span<PolyStatement>,
        front: OpeningFront,
        channel: Poseidon252Channel,
    ) -> (QueryPhase, Poseidon252Channel) {
        let mut args = array![];
        (params, statement, front, channel).serialize(ref args);
        let mut ret = call_class(self.class_hash, selector!("poseidon_front"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn blake2s_front(
        self: FrontClass,
        params: PcsParams,
        statement: Span<PolyStatement>,
        front: OpeningFront,
        channel: Blake2sChannel,
    ) -> (QueryPhase, Blake2sChannel) {
        let mut args = array![];
        (params, statement, front, channel).serialize(ref args);
        let mut ret = call_class(self.class_hash, selector!("blake2s_front"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn witness_start(
        self: FrontClass,
        hash: felt252,
        poly_vars: Span<u32>,
        poly_roots: Span<u256>,
        front: OpeningFront,
        channel: Blake2sChannel,
    ) -> FrontReplay<Blake2sChannel> {
        let mut args = array![];
        (hash, poly_vars, poly_roots, front, channel).serialize(ref args);
        let mut ret = call_class(self.class_hash, selector!("witness_start"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn witness_steps(
        self: FrontClass,
        hash: felt252,
        replay: FrontReplay<Blake2sChannel>,
        absorb: Span<Span<Claim>>,
        reduce: Span<Span<Claim>>,
    ) -> (FrontReplay<Blake2sChannel>, Option<QueryPhase>) {
        let mut args = array![];
        hash.serialize(ref args);
        replay.serialize(ref args);
        (absorb, reduce).serialize(ref args);
        let mut ret = call_class(self.class_hash, selector!("witness_steps"), args);
        Serde::deserialize(ref ret).unwrap()
    }
}

#[starknet::interface]
pub trait ICairnFrontVerifier<TContractState> {
    /// `verify_front` on a Poseidon252 channel: the query phase and the channel it leaves.
    fn poseidon_front(
        self: @TContractState,
        params: PcsParams,
        statement: Span<PolyStatement>,
        front: OpeningFront,
        channel: Poseidon252Channel,
    ) -> (QueryPhase, Poseidon252Channel);
    /// `verify_front` on a Blake2s channel.
    fn blake2s_front(
        self: @TContractState,
        params: PcsParams,
        statement: Span<PolyStatement>,
        front: OpeningFront,
        channel: Blake2sChannel,
    ) -> (QueryPhase, Blake2sChannel);
    /// A witness opening's front (`witness_params(hash)`) started on `channel`: its
    /// polynomials' sizes and roots, nothing absorbed.
    fn witness_start(
        self: @TContractState,
        hash: felt252,
        poly_vars: Span<u32>,
        poly_roots: Span<u256>,
        front: OpeningFront,
        channel: Blake2sChannel,
    ) -> FrontReplay<Blake2sChannel>;
    /// A witness opening's front part way, given the claims of its next polynomials to absorb,
    /// then of those to reduce; its query phase once every polynomial is reduced.
    fn witness_steps(
        self: @TContractState,
        hash: felt252,
        replay: FrontReplay<Blake2sChannel>,
        absorb: Span<Span<Claim>>,
        reduce: Span<Span<Claim>>,
    ) -> (FrontReplay<Blake2sChannel>, Option<QueryPhase>);
}

#[starknet::contract]
pub mod CairnFrontVerifier {
    use crate::channels::blake2s::Blake2sChannel;
    use crate::channels::poseidon252::Poseidon252Channel;
    use crate::pcs::front::{FrontReplay, FrontReplayTrait, QueryPhase};
    use crate::pcs::params::{PcsParams, witness_params};
    use crate::pcs::proof::{Claim, OpeningFront, PolyStatement};
    use crate::pcs::verifier::verify_front;

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnFrontVerifierImpl of super::ICairnFrontVerifier<ContractState> {
        fn poseidon_front(
            self: @ContractState,
            params: PcsParams,
            statement: Span<PolyStatement>,
            front: OpeningFront,
            channel: Poseidon252Channel,
        ) -> (QueryPhase, Poseidon252Channel) {
            let mut channel = channel;
            let phase = verify_front(@params, statement, front, ref channel);
            (phase, channel)
        }

        fn blake2s_front(
            self: @ContractState,
            params: PcsParams,
            statement: Span<PolyStatement>,
            front: OpeningFront,
            channel: Blake2sChannel,
        ) -> (QueryPhase, Blake2sChannel) {
            let mut channel = channel;
            let phase = verify_front(@params, statement, front, ref channel);
            (phase, channel)
        }

        fn witness_start(
            self: @ContractState,
            hash: felt252,
            poly_vars: Span<u32>,
            poly_roots: Span<u256>,
            front: OpeningFront,
            channel: Blake2sChannel,
        ) -> FrontReplay<Blake2sChannel> {
            let params = witness_params(hash).unwrap();
            FrontReplayTrait::start(@params, poly_vars, poly_roots, front, channel)
        }

        fn witness_steps(
            self: @ContractState,
            hash: felt252,
            replay: FrontReplay<Blake2sChannel>,
            absorb: Span<Span<Claim>>,
            reduce: Span<Span<Claim>>,
        ) -> (FrontReplay<Blake2sChannel>, Option<QueryPhase>) {
            let params = witness_params(hash).unwrap();
            let mut replay = replay;
            replay.absorb(@params, absorb);
            replay.reduce(reduce);
            if replay.reduced != replay.poly_vars.len() {
                return (replay, None);
            }
            let phase = replay.finish(@params);
            (replay, Some(phase))
        }
    }
}
