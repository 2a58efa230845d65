//! The lookup layers' verifiers as a class of their own, which the attention and encoder
//! classes call by `library_call` (docs/cairo-verifier.md, "Eight classes"): with softmax,
//! requant, gelu, layernorm and their LogUp-GKR in it, a walk class would exceed mainnet's
//! 81,920-felt bytecode limit. It has no storage and no side effect. It takes each lookup proof
//! as the felts the walk carries unread (`AttnProof.softmax`, `RequantProof.logup`, whole gelu
//! and layernorm proofs: nested parts, docs/calldata.md), so only this class holds their Serde.

use starknet::ClassHash;
use crate::blake2s::Blake2sHash;
use crate::channels::base::Channel;
use crate::channels::fork::join;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::layers::call_class;
use crate::layers::gelu::params::GeluParamsTrait;
use crate::layers::gelu::verifier::verify_fork as verify_gelu_fork;
use crate::layers::mha::model::Dims;
use crate::layers::requant::model::entry_vars;
use crate::layers::requant::params::RequantParamsTrait;
use crate::layers::requant::verifier::verify_fork;
use crate::pcs::proof::{Claim, ClaimTrait};
use crate::softmax::params::SoftmaxParamsTrait;
use crate::softmax::soundness::{check_security, error_count};
use crate::softmax::verifier::{SoftmaxOutcome, check_commitments, verify_softmax};
use crate::walk::calldata::deserialize_exactly;
use crate::walk::layer::LayerClaims;
use crate::walk::proof::{LogUpProof, RequantColumns, SoftmaxProof};
use crate::walk::tensor::TensorCommitment;

#[starknet::interface]
pub trait ICairnLookupVerifier<TContractState> {
    /// The softmax parameter rules and the 96-bit rule of attn's dims (`softmax.params`);
    /// returns the terms' count over |F| (`softmax::soundness::error_count`).
    fn softmax_check_params(self: @TContractState, dims: Span<u32>) -> u128;
    /// `softmax.commitment` unless the witness is exactly the layout's stacks, one hash.
    fn softmax_check_witness(
        self: @TContractState,
        dims: Span<u32>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    );
    /// The softmax proof (its Serde felts) on its fork of the parent's digest.
    fn softmax_verify(
        self: @TContractState,
        dims: Span<u32>,
        proof: Span<felt252>,
        a_claim: Claim,
        parent: felt252,
    ) -> SoftmaxOutcome;
    /// Requant's statement rules after its shapes: parameters, no-wrap bound, max|x| (None:
    /// x committed), table and soundness, the witness stacks; returns the terms' count.
    fn requant_check(
        self: @TContractState,
        dims: Span<u32>,
        x_max: Option<u128>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) -> u128;
    /// Requant's LogUp-GKR (its Serde felts) and column values on its fork of the parent's
    /// digest.
    fn requant_verify(
        self: @TContractState,
        dims: Span<u32>,
        logup: Span<felt252>,
        columns: RequantColumns,
        y_claim: Claim,
        parent: felt252,
    ) -> ForkOutcome;
    /// Gelu's statement rules after its shapes: a pinned table, soundness, the witness
    /// stacks; returns the terms' count.
    fn gelu_check(
        self: @TContractState,
        dims: Span<u32>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) -> u128;
    /// Gelu's proof (its Serde felts) on its fork of the parent's digest.
    fn gelu_verify(
        self: @TContractState, dims: Span<u32>, proof: Span<felt252>, y_claim: Claim, parent: felt252,
    ) -> ForkOutcome;
    /// LayerNorm's statement rules after its shapes: parameters, h's range and γ's and β's
    /// bounds where known, soundness, the witness stacks; returns the terms' count.
    fn layernorm_check(
        self: @TContractState,
        dims: Span<u32>,
        h: Option<(i64, i64)>,
        gamma: Option<u128>,
        beta: Option<u128>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) -> u128;
    /// LayerNorm's fork (the proof's nested parts) from the parent's digest, with the public
    /// statistics' values and the claims on s1, s2, y.
    fn layernorm_verify(
        self: @TContractState,
        dims: Span<u32>,
        s1: Span<felt252>,
        s2: Span<felt252>,
        proof: Span<felt252>,
        outputs: Span<Claim>,
        parent: felt252,
    ) -> ForkOutcome;
}

/// What a lookup layer's fork leaves to its walk class: the fork's final digest and the
/// layer's claims (on its inputs and weights, which the parent absorbs, and on the witness).
#[derive(Drop, Serde)]
pub struct ForkOutcome {
    pub digest: Blake2sHash,
    pub claims: LayerClaims,
}

#[generate_trait]
pub impl ForkOutcomeImpl of ForkOutcomeTrait {
    /// The join (Python: `join(parent, channel)`), then the parent absorbs every claim handed
    /// to the walk, point then value, inputs then weights, each in name order.
    fn join(self: ForkOutcome, ref channel: Poseidon252Channel) -> LayerClaims {
        join(ref channel, @self.digest);
        for group in array![self.claims.inputs, self.claims.weights] {
            for on in group {
                for c in *on.claims {
                    channel.mix_felts(c.felts());
                }
            }
        }
        self.claims
    }
}

/// The statement's dims (s, h, m, causal, …) as mha's `Dims`.
fn dims_of(dims: Span<u32>) -> Dims {
    Dims { s: *dims[0], h: *dims[1], m: *dims[2], causal: *dims[3] == 1 }
}

#[starknet::contract]
pub mod CairnLookupVerifier {
    use crate::pcs::proof::Claim;
    use crate::softmax::verifier::SoftmaxOutcome;
    use crate::layers::layernorm::verifier::verify_fork as verify_layernorm_fork;
    use crate::walk::proof::{GeluProof, LayerNormProof, RequantColumns};
    use crate::walk::tensor::TensorCommitment;
    use super::*;

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnLookupVerifierImpl of super::ICairnLookupVerifier<ContractState> {
        fn softmax_check_params(self: @ContractState, dims: Span<u32>) -> u128 {
            let d = dims_of(dims);
            let params = SoftmaxParamsTrait::from_dims(dims);
            params.check(d.s, d.m);
            check_security(@d, @params);
            error_count(@d, @params)
        }

        fn softmax_check_witness(
            self: @ContractState,
            dims: Span<u32>,
            names: Span<felt252>,
            commitments: Span<TensorCommitment>,
        ) {
            let params = SoftmaxParamsTrait::from_dims(dims);
            check_commitments(@dims_of(dims), @params, names, commitments);
        }

        fn softmax_verify(
            self: @ContractState,
            dims: Span<u32>,
            proof: Span<felt252>,
            a_claim: Claim,
            parent: felt252,
        ) -> SoftmaxOutcome {
            let proof: SoftmaxProof = deserialize_exactly(proof);
            let params = SoftmaxParamsTrait::from_dims(dims);
            verify_softmax(@dims_of(dims), @params, @proof, a_claim, parent)
        }

        fn requant_check(
            self: @ContractState,
            dims: Span<u32>,
            x_max: Option<u128>,
            names: Span<felt252>,
            commitments: Span<TensorCommitment>,
        ) -> u128 {
            crate::layers::requant::model::check_params(dims, x_max, names, commitments)
        }

        fn requant_verify(
            self: @ContractState,
            dims: Span<u32>,
            logup: Span<felt252>,
            columns: RequantColumns,
            y_claim: Claim,
            parent: felt252,
        ) -> super::ForkOutcome {
            let logup: LogUpProof = deserialize_exactly(logup);
            let params = RequantParamsTrait::from_dims(dims);
            verify_fork(entry_vars(dims), @params, @logup, @columns, y_claim, parent)
        }

        fn gelu_check(
            self: @ContractState,
            dims: Span<u32>,
            names: Span<felt252>,
            commitments: Span<TensorCommitment>,
        ) -> u128 {
            crate::layers::gelu::model::check_params(dims, names, commitments)
        }

        fn gelu_verify(
            self: @ContractState,
            dims: Span<u32>,
            proof: Span<felt252>,
            y_claim: Claim,
            parent: felt252,
        ) -> super::ForkOutcome {
            let proof: GeluProof = deserialize_exactly(proof);
            let params = GeluParamsTrait::from_dims(dims);
            let n = crate::layers::gelu::params::entry_vars(dims);
            verify_gelu_fork(n, @params, @proof.logup, @proof.columns, y_claim, parent)
        }

        fn layernorm_check(
            self: @ContractState,
            dims: Span<u32>,
            h: Option<(i64, i64)>,
            gamma: Option<u128>,
            beta: Option<u128>,
            names: Span<felt252>,
            commitments: Span<TensorCommitment>,
        ) -> u128 {
            crate::layers::layernorm::model::check_params(dims, h, gamma, beta, names, commitments)
        }

        fn layernorm_verify(
            self: @ContractState,
            dims: Span<u32>,
            s1: Span<felt252>,
            s2: Span<felt252>,
            proof: Span<felt252>,
            outputs: Span<Claim>,
            parent: felt252,
        ) -> super::ForkOutcome {
            let proof: LayerNormProof = deserialize_exactly(proof);
            verify_layernorm_fork(dims, s1, s2, @proof, outputs, parent)
        }
    }
}

/// The lookup class as the attention class calls it: a failed check panics with its name
/// alone, as if verified in place (on a node, the revert's innermost panic names it too).
#[derive(Copy, Drop)]
pub struct LookupClass {
    pub class_hash: ClassHash,
}

#[generate_trait]
pub impl LookupClassImpl of LookupClassTrait {
    fn softmax_check_params(self: LookupClass, dims: Span<u32>) -> u128 {
        let mut args = array![];
        dims.serialize(ref args);
        let mut ret = self.call(selector!("softmax_check_params"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn softmax_check_witness(
        self: LookupClass,
        dims: Span<u32>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) {
        let mut args = array![];
        dims.serialize(ref args);
        names.serialize(ref args);
        commitments.serialize(ref args);
        self.call(selector!("softmax_check_witness"), args);
    }

    fn softmax_verify(
        self: LookupClass, dims: Span<u32>, proof: Span<felt252>, a_claim: Claim, parent: felt252,
    ) -> SoftmaxOutcome {
        let mut args = array![];
        dims.serialize(ref args);
        proof.serialize(ref args);
        a_claim.serialize(ref args);
        parent.serialize(ref args);
        let mut ret = self.call(selector!("softmax_verify"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn requant_check(
        self: LookupClass,
        dims: Span<u32>,
        x_max: Option<u128>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) -> u128 {
        let mut args = array![];
        dims.serialize(ref args);
        x_max.serialize(ref args);
        names.serialize(ref args);
        commitments.serialize(ref args);
        let mut ret = self.call(selector!("requant_check"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn requant_verify(
        self: LookupClass,
        dims: Span<u32>,
        logup: Span<felt252>,
        columns: @RequantColumns,
        y_claim: Claim,
        parent: felt252,
    ) -> ForkOutcome {
        let mut args = array![];
        dims.serialize(ref args);
        logup.serialize(ref args);
        columns.serialize(ref args);
        y_claim.serialize(ref args);
        parent.serialize(ref args);
        let mut ret = self.call(selector!("requant_verify"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn gelu_check(
        self: LookupClass, dims: Span<u32>, names: Span<felt252>, commitments: Span<TensorCommitment>,
    ) -> u128 {
        let mut args = array![];
        dims.serialize(ref args);
        names.serialize(ref args);
        commitments.serialize(ref args);
        let mut ret = self.call(selector!("gelu_check"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn gelu_verify(
        self: LookupClass, dims: Span<u32>, proof: Span<felt252>, y_claim: Claim, parent: felt252,
    ) -> ForkOutcome {
        let mut args = array![];
        dims.serialize(ref args);
        proof.serialize(ref args);
        y_claim.serialize(ref args);
        parent.serialize(ref args);
        let mut ret = self.call(selector!("gelu_verify"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn layernorm_check(
        self: LookupClass,
        dims: Span<u32>,
        h: Option<(i64, i64)>,
        gamma: Option<u128>,
        beta: Option<u128>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) -> u128 {
        let mut args = array![];
        dims.serialize(ref args);
        h.serialize(ref args);
        gamma.serialize(ref args);
        beta.serialize(ref args);
        names.serialize(ref args);
        commitments.serialize(ref args);
        let mut ret = self.call(selector!("layernorm_check"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn layernorm_verify(
        self: LookupClass,
        dims: Span<u32>,
        s1: Span<felt252>,
        s2: Span<felt252>,
        proof: Span<felt252>,
        outputs: Span<Claim>,
        parent: felt252,
    ) -> ForkOutcome {
        let mut args = array![];
        dims.serialize(ref args);
        s1.serialize(ref args);
        s2.serialize(ref args);
        proof.serialize(ref args);
        outputs.serialize(ref args);
        parent.serialize(ref args);
        let mut ret = self.call(selector!("layernorm_verify"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn call(self: LookupClass, selector: felt252, args: Array<felt252>) -> Span<felt252> {
        call_class(self.class_hash, selector, args)
    }
}
