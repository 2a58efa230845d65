use core::poseidon::poseidon_hash_span;
use starknet::syscalls::deploy_syscall;
use starknet::{ContractAddress, SyscallResultTrait};
use crate::contract::CairnVerifier::Event;
use crate::contract::{CairnVerifier, ICairnVerifierDispatcher, ICairnVerifierDispatcherTrait};
use super::support::splice;
use super::vectors::matmul_3x5x2;

fn deploy() -> (ICairnVerifierDispatcher, ContractAddress) {
    let (address, _) = deploy_syscall(
        CairnVerifier::TEST_CLASS_HASH.try_into().unwrap(), 0, array![].span(), false,
    )
        .unwrap_syscall();
    (ICairnVerifierDispatcher { contract_address: address }, address)
}

#[test]
fn verify_records_and_emits() {
    let (verifier, address) = deploy();
    let proof = matmul_3x5x2().span();
    let proof_hash = poseidon_hash_span(proof);
    assert!(!verifier.is_verified(proof_hash));
    assert_eq!(verifier.verify(proof), proof_hash);
    assert!(verifier.is_verified(proof_hash));
    assert!(!verifier.is_verified(proof_hash + 1));
    match starknet::testing::pop_log::<Event>(address).unwrap() {
        Event::ProofVerified(event) => {
            assert_eq!(event.proof_hash, proof_hash);
            assert_eq!(event.kind, 1);
        },
    }
}

#[test]
#[should_panic(expected: ('calldata.version', 'ENTRYPOINT_FAILED'))]
fn verify_reverts_with_the_check_name() {
    let (verifier, _) = deploy();
    verifier.verify(splice(matmul_3x5x2(), 0, 1, array![2]).span());
}
