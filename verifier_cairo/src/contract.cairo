//! The on-chain entry point: verifies a proof given as calldata (docs/calldata.md) and records
//! its hash, so other contracts and users can ask whether a proof was verified.

#[starknet::interface]
pub trait ICairnVerifier<TContractState> {
    /// Verifies `proof`, marks `poseidon_hash_span(proof)` as verified, emits `ProofVerified`
    /// and returns the hash; an invalid proof panics with the name of the failed check.
    fn verify(ref self: TContractState, proof: Span<felt252>) -> felt252;
    fn is_verified(self: @TContractState, proof_hash: felt252) -> bool;
}

#[starknet::contract]
pub mod CairnVerifier {
    use core::poseidon::poseidon_hash_span;
    use starknet::storage::{Map, StorageMapReadAccess, StorageMapWriteAccess};
    use crate::calldata::{KIND_MATMUL, read_matmul};
    use crate::matmul::verify_matmul;

    #[storage]
    struct Storage {
        verified: Map<felt252, bool>,
    }

    #[event]
    #[derive(Drop, starknet::Event)]
    pub enum Event {
        ProofVerified: ProofVerified,
    }

    #[derive(Drop, starknet::Event)]
    pub struct ProofVerified {
        #[key]
        pub proof_hash: felt252,
        pub kind: felt252,
    }

    #[abi(embed_v0)]
    impl CairnVerifierImpl of super::ICairnVerifier<ContractState> {
        fn verify(ref self: ContractState, proof: Span<felt252>) -> felt252 {
            verify_matmul(read_matmul(proof));
            let proof_hash = poseidon_hash_span(proof);
            self.verified.write(proof_hash, true);
            self.emit(ProofVerified { proof_hash, kind: KIND_MATMUL });
            proof_hash
        }

        fn is_verified(self: @ContractState, proof_hash: felt252) -> bool {
            self.verified.read(proof_hash)
        }
    }
}
