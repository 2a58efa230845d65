use core::poseidon::poseidon_hash_span;
use starknet::syscalls::deploy_syscall;
use starknet::testing::{pop_log, set_contract_address};
use starknet::{ContractAddress, SyscallResultTrait};
use crate::contract::CairnVerifier::{Event, ModelRegistered, ProofVerified};
use crate::contract::{
    CairnVerifier, ICairnVerifierDispatcher, ICairnVerifierDispatcherTrait, Model, ProofRecord,
};
use super::support::{constructor_args, deploy_with_models, splice};
use super::walk_support::verify_walk_calldata;
use super::walk_vectors::matmul_0;

fn owner() -> ContractAddress {
    'owner'.try_into().unwrap()
}

fn stranger() -> ContractAddress {
    'stranger'.try_into().unwrap()
}

fn deploy() -> (ICairnVerifierDispatcher, ContractAddress) {
    let (address, _) = deploy_syscall(
        CairnVerifier::TEST_CLASS_HASH.try_into().unwrap(), 0, constructor_args(owner()), false,
    )
        .unwrap_syscall();
    (ICairnVerifierDispatcher { contract_address: address }, address)
}

/// `deploy()` with model 7 registered by the owner; calls then come from `stranger()`.
fn deploy_with_model() -> ICairnVerifierDispatcher {
    let (verifier, _) = deploy();
    set_contract_address(owner());
    verifier.register_model(7, 'config', array![11, 12, 13].span());
    set_contract_address(stranger());
    verifier
}

#[test]
fn verify_records_and_emits() {
    let (verifier, address) = deploy();
    let proof = matmul_0().span();
    let proof_hash = poseidon_hash_span(proof);
    // The statement's hash, as Python computes it (`walk_vectors::accepts_matmul_0`).
    let io_hash = verify_walk_calldata(matmul_0());
    assert!(!verifier.is_verified(proof_hash));
    assert_eq!(verifier.verify(proof), proof_hash);
    assert!(verifier.is_verified(proof_hash));
    assert!(!verifier.is_verified(proof_hash + 1));
    assert_eq!(verifier.get_proof(proof_hash), ProofRecord { model_id: 0, io_hash, kind: 4 });
    assert_eq!(
        pop_log(address),
        Some(Event::ProofVerified(ProofVerified { model_id: 0, proof_hash, io_hash, kind: 4 })),
    );
}

/// The walk class reads layer proofs; its panic comes back through the contract's
/// library_call, hence a second 'ENTRYPOINT_FAILED'.
#[test]
#[should_panic(expected: ('calldata.version', 'ENTRYPOINT_FAILED', 'ENTRYPOINT_FAILED'))]
fn verify_reverts_with_the_check_name() {
    let (verifier, _) = deploy();
    // Version 2, the layout that had the standalone matmul.
    verifier.verify(splice(matmul_0(), 0, 1, array![2]).span());
}

#[test]
#[should_panic(expected: ('registry.unknown_proof', 'ENTRYPOINT_FAILED'))]
fn get_proof_of_an_unverified_hash() {
    let (verifier, _) = deploy();
    verifier.get_proof(poseidon_hash_span(matmul_0().span()));
}

#[test]
fn constructor_sets_the_owner() {
    let (verifier, _) = deploy();
    assert_eq!(verifier.owner(), owner());
}

#[test]
fn constructor_refuses_a_zero_owner() {
    let result = deploy_syscall(
        CairnVerifier::TEST_CLASS_HASH.try_into().unwrap(), 0, constructor_args(0.try_into().unwrap()), false,
    );
    assert_eq!(result.unwrap_err(), array!['registry.zero_owner', 'CONSTRUCTOR_FAILED']);
}

#[test]
fn owner_registers_and_anyone_reads() {
    let (verifier, address) = deploy();
    assert!(!verifier.is_registered(7));
    set_contract_address(owner());
    verifier.register_model(7, 'config', array![11, 12, 13].span());
    assert_eq!(
        pop_log(address),
        Some(
            Event::ModelRegistered(
                ModelRegistered {
                    model_id: 7,
                    config_hash: 'config',
                    commitments_hash: poseidon_hash_span(array![11, 12, 13].span()),
                },
            ),
        ),
    );
    set_contract_address(stranger());
    assert!(verifier.is_registered(7));
    assert!(!verifier.is_registered(8));
    assert_eq!(
        verifier.get_model(7), Model { config_hash: 'config', commitments: array![11, 12, 13] },
    );
}

#[test]
fn models_are_independent() {
    let verifier = deploy_with_model();
    set_contract_address(owner());
    verifier.register_model(8, 'other', array![21].span());
    assert_eq!(verifier.get_model(7).commitments, array![11, 12, 13]);
    assert_eq!(verifier.get_model(8), Model { config_hash: 'other', commitments: array![21] });
}

#[test]
#[should_panic(expected: ('registry.not_owner', 'ENTRYPOINT_FAILED'))]
fn stranger_cannot_register() {
    let verifier = deploy_with_model();
    verifier.register_model(8, 'config', array![1].span());
}

#[test]
#[should_panic(expected: ('registry.not_owner', 'ENTRYPOINT_FAILED'))]
fn stranger_cannot_overwrite() {
    let verifier = deploy_with_model();
    verifier.register_model(7, 'forged', array![1].span());
}

#[test]
#[should_panic(expected: ('registry.exists', 'ENTRYPOINT_FAILED'))]
fn owner_cannot_register_twice() {
    let verifier = deploy_with_model();
    set_contract_address(owner());
    verifier.register_model(7, 'config', array![11, 12, 13].span());
}

#[test]
#[should_panic(expected: ('registry.model_id_zero', 'ENTRYPOINT_FAILED'))]
fn model_id_zero_is_reserved() {
    let (verifier, _) = deploy();
    set_contract_address(owner());
    verifier.register_model(0, 'config', array![1].span());
}

#[test]
#[should_panic(expected: ('registry.no_commitments', 'ENTRYPOINT_FAILED'))]
fn a_model_needs_commitments() {
    let (verifier, _) = deploy();
    set_contract_address(owner());
    verifier.register_model(7, 'config', array![].span());
}

#[test]
#[should_panic(expected: ('registry.unknown_model', 'ENTRYPOINT_FAILED'))]
fn get_model_of_an_unknown_id() {
    let verifier = deploy_with_model();
    verifier.get_model(8);
}

/// A layer proof without committed weights has no opening to split: `open_session` verifies
/// and records it at once, as `verify` does, and leaves no session open.
#[test]
fn public_weights_finish_at_once() {
    let verifier = deploy_with_models(array![]);
    let proof = matmul_0().span();
    let proof_hash = poseidon_hash_span(proof);
    assert_eq!(verifier.open_session(proof, false), proof_hash);
    assert!(verifier.is_verified(proof_hash));
    assert_eq!(verifier.session_state_hash(proof_hash), 0);
}

/// Kind 1, the retired standalone matmul, has no session (nor any other path).
#[test]
#[should_panic(expected: ('calldata.kind', 'ENTRYPOINT_FAILED'))]
fn retired_kinds_have_no_session() {
    let verifier = deploy_with_models(array![]);
    verifier.open_session(splice(matmul_0(), 1, 2, array![1]).span(), false);
}
