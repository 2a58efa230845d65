//! The softmax verifier as a class of its own, which the attention class calls by
//! `library_call` (docs/cairo-verifier.md, "Four classes"): with softmax and its LogUp-GKR in
//! it, the attention class would exceed mainnet's 81,920-felt bytecode limit. It has no
//! storage and no side effect. It takes softmax's proof as the felts the walk carries unread
//! (`AttnProof.softmax`, a nested part: docs/calldata.md), so only this class holds its Serde.

use core::panic_with_felt252;
use starknet::ClassHash;
use crate::layers::mha::model::Dims;
use crate::pcs::proof::Claim;
use crate::walk::proof::SoftmaxProof;
use crate::walk::tensor::TensorCommitment;
use super::params::SoftmaxParamsTrait;
use super::soundness::check_security;
use super::verifier::{SoftmaxOutcome, check_commitments, verify_softmax};

#[starknet::interface]
pub trait ICairnSoftmaxVerifier<TContractState> {
    /// The parameter rules and the 96-bit rule of the statement's dims (`softmax.params`).
    fn check_params(self: @TContractState, dims: Span<u32>);
    /// `softmax.commitment` unless the witness is exactly the layout's Blake2s stacks.
    fn check_witness(
        self: @TContractState,
        dims: Span<u32>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    );
    /// The softmax proof (its Serde felts) on its fork of the parent's digest.
    fn verify(
        self: @TContractState,
        dims: Span<u32>,
        proof: Span<felt252>,
        a_claim: Claim,
        parent: felt252,
    ) -> SoftmaxOutcome;
}

/// The statement's dims (s, h, m, causal, …) as mha's `Dims`.
fn dims_of(dims: Span<u32>) -> Dims {
    Dims { s: *dims[0], h: *dims[1], m: *dims[2], causal: *dims[3] == 1 }
}

pub fn check_params(dims: Span<u32>) {
    let d = dims_of(dims);
    let params = SoftmaxParamsTrait::from_dims(dims);
    params.check(d.s, d.m);
    check_security(@d, @params);
}

pub fn check_witness(dims: Span<u32>, names: Span<felt252>, commitments: Span<TensorCommitment>) {
    check_commitments(@dims_of(dims), @SoftmaxParamsTrait::from_dims(dims), names, commitments);
}

/// Deserializes the proof (`calldata.serde` unless it is exactly a `SoftmaxProof`), then runs
/// the fork.
pub fn verify(
    dims: Span<u32>, proof: Span<felt252>, a_claim: Claim, parent: felt252,
) -> SoftmaxOutcome {
    let mut data = proof;
    let proof: SoftmaxProof = match Serde::deserialize(ref data) {
        Some(p) => p,
        None => panic_with_felt252('calldata.serde'),
    };
    assert(data.is_empty(), 'calldata.serde');
    verify_softmax(@dims_of(dims), @SoftmaxParamsTrait::from_dims(dims), @proof, a_claim, parent)
}

#[starknet::contract]
pub mod CairnSoftmaxVerifier {
    use crate::pcs::proof::Claim;
    use crate::softmax::verifier::SoftmaxOutcome;
    use crate::walk::tensor::TensorCommitment;

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnSoftmaxVerifierImpl of super::ICairnSoftmaxVerifier<ContractState> {
        fn check_params(self: @ContractState, dims: Span<u32>) {
            super::check_params(dims)
        }

        fn check_witness(
            self: @ContractState,
            dims: Span<u32>,
            names: Span<felt252>,
            commitments: Span<TensorCommitment>,
        ) {
            super::check_witness(dims, names, commitments)
        }

        fn verify(
            self: @ContractState,
            dims: Span<u32>,
            proof: Span<felt252>,
            a_claim: Claim,
            parent: felt252,
        ) -> SoftmaxOutcome {
            super::verify(dims, proof, a_claim, parent)
        }
    }
}

/// The softmax class as the attention class calls it: a failed check panics with its name
/// alone, as if verified in place (on a node, the revert's innermost panic names it too).
#[derive(Copy, Drop)]
pub struct SoftmaxClass {
    pub class_hash: ClassHash,
}

#[generate_trait]
pub impl SoftmaxClassImpl of SoftmaxClassTrait {
    fn check_params(self: SoftmaxClass, dims: Span<u32>) {
        let mut args = array![];
        dims.serialize(ref args);
        self.call(selector!("check_params"), args);
    }

    fn check_witness(
        self: SoftmaxClass,
        dims: Span<u32>,
        names: Span<felt252>,
        commitments: Span<TensorCommitment>,
    ) {
        let mut args = array![];
        dims.serialize(ref args);
        names.serialize(ref args);
        commitments.serialize(ref args);
        self.call(selector!("check_witness"), args);
    }

    fn verify(
        self: SoftmaxClass, dims: Span<u32>, proof: Span<felt252>, a_claim: Claim, parent: felt252,
    ) -> SoftmaxOutcome {
        let mut args = array![];
        dims.serialize(ref args);
        proof.serialize(ref args);
        a_claim.serialize(ref args);
        parent.serialize(ref args);
        let mut ret = self.call(selector!("verify"), args);
        Serde::deserialize(ref ret).unwrap()
    }

    fn call(self: SoftmaxClass, selector: felt252, args: Array<felt252>) -> Span<felt252> {
        match starknet::syscalls::library_call_syscall(self.class_hash, selector, args.span()) {
            Ok(ret) => ret,
            Err(data) => panic_with_felt252(*data[0]),
        }
    }
}
