//! The on-chain entry point: verifies proofs given as calldata (docs/calldata.md), records
//! them, and keeps the model registry (docs/registry.md): the owner registers a model's config
//! hash and weight commitments once; anyone verifies proofs, which are recorded with the model
//! they are bound to (0 = none) and a hash of their public input and output.

use starknet::ContractAddress;

/// A registered model, as the `get_model` view returns it.
#[derive(Drop, Serde, PartialEq, Debug)]
pub struct Model {
    pub config_hash: felt252,
    pub commitments: Array<felt252>,
}

/// What the contract remembers of a verified proof. `kind` is never 0, so an unwritten record
/// reads as "not verified".
#[derive(Copy, Drop, Serde, PartialEq, Debug, starknet::Store)]
pub struct ProofRecord {
    pub model_id: felt252,
    pub io_hash: felt252,
    pub kind: felt252,
}

#[starknet::interface]
pub trait ICairnVerifier<TContractState> {
    /// Verifies `proof`, records it under `poseidon_hash_span(proof)`, emits `ProofVerified`
    /// and returns that hash; an invalid proof panics with the name of the failed check.
    fn verify(ref self: TContractState, proof: Span<felt252>) -> felt252;
    fn is_verified(self: @TContractState, proof_hash: felt252) -> bool;
    /// Panics with `registry.unknown_proof` unless `proof_hash` was verified.
    fn get_proof(self: @TContractState, proof_hash: felt252) -> ProofRecord;

    fn owner(self: @TContractState) -> ContractAddress;
    /// Owner only; a model id is registered once and never changes.
    fn register_model(
        ref self: TContractState,
        model_id: felt252,
        config_hash: felt252,
        commitments: Span<felt252>,
    );
    fn is_registered(self: @TContractState, model_id: felt252) -> bool;
    /// Panics with `registry.unknown_model` unless `model_id` is registered.
    fn get_model(self: @TContractState, model_id: felt252) -> Model;
}

#[starknet::contract]
pub mod CairnVerifier {
    use core::num::traits::Zero;
    use core::poseidon::poseidon_hash_span;
    use starknet::storage::{
        Map, MutableVecTrait, StoragePathEntry, StoragePointerReadAccess,
        StoragePointerWriteAccess, Vec, VecTrait,
    };
    use starknet::{ContractAddress, get_caller_address};
    use crate::calldata::{KIND_MATMUL, read_matmul};
    use crate::matmul::verify_matmul;
    use super::{Model, ProofRecord};

    /// The model id of proofs bound to no model (the public matmul); never registrable.
    pub const NO_MODEL: felt252 = 0;

    #[storage]
    struct Storage {
        owner: ContractAddress,
        models: Map<felt252, ModelEntry>,
        proofs: Map<felt252, ProofRecord>,
    }

    #[starknet::storage_node]
    struct ModelEntry {
        registered: bool,
        config_hash: felt252,
        commitments: Vec<felt252>,
    }

    #[event]
    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub enum Event {
        ProofVerified: ProofVerified,
        ModelRegistered: ModelRegistered,
    }

    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub struct ProofVerified {
        #[key]
        pub model_id: felt252,
        #[key]
        pub proof_hash: felt252,
        pub io_hash: felt252,
        pub kind: felt252,
    }

    /// The commitments themselves are read with `get_model`; the event carries their hash
    /// (`poseidon_hash_span`), so its size does not grow with the model.
    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub struct ModelRegistered {
        #[key]
        pub model_id: felt252,
        pub config_hash: felt252,
        pub commitments_hash: felt252,
    }

    /// The owner is an argument, not the caller: deployments go through the Universal
    /// Deployer, which would otherwise be the owner.
    #[constructor]
    fn constructor(ref self: ContractState, owner: ContractAddress) {
        assert(owner.is_non_zero(), 'registry.zero_owner');
        self.owner.write(owner);
    }

    #[abi(embed_v0)]
    impl CairnVerifierImpl of super::ICairnVerifier<ContractState> {
        fn verify(ref self: ContractState, proof: Span<felt252>) -> felt252 {
            let decoded = read_matmul(proof);
            verify_matmul(decoded);
            let record = ProofRecord {
                model_id: NO_MODEL, io_hash: poseidon_hash_span(decoded.io), kind: KIND_MATMUL,
            };
            let proof_hash = poseidon_hash_span(proof);
            self.proofs.entry(proof_hash).write(record);
            self
                .emit(
                    ProofVerified {
                        model_id: record.model_id,
                        proof_hash,
                        io_hash: record.io_hash,
                        kind: record.kind,
                    },
                );
            proof_hash
        }

        fn is_verified(self: @ContractState, proof_hash: felt252) -> bool {
            self.proofs.entry(proof_hash).kind.read() != 0
        }

        fn get_proof(self: @ContractState, proof_hash: felt252) -> ProofRecord {
            let record = self.proofs.entry(proof_hash).read();
            assert(record.kind != 0, 'registry.unknown_proof');
            record
        }

        fn owner(self: @ContractState) -> ContractAddress {
            self.owner.read()
        }

        fn register_model(
            ref self: ContractState,
            model_id: felt252,
            config_hash: felt252,
            commitments: Span<felt252>,
        ) {
            assert(get_caller_address() == self.owner.read(), 'registry.not_owner');
            assert(model_id != NO_MODEL, 'registry.model_id_zero');
            let entry = self.models.entry(model_id);
            assert(!entry.registered.read(), 'registry.exists');
            assert(!commitments.is_empty(), 'registry.no_commitments');
            entry.registered.write(true);
            entry.config_hash.write(config_hash);
            for commitment in commitments {
                entry.commitments.push(*commitment);
            }
            self
                .emit(
                    ModelRegistered {
                        model_id, config_hash, commitments_hash: poseidon_hash_span(commitments),
                    },
                );
        }

        fn is_registered(self: @ContractState, model_id: felt252) -> bool {
            self.models.entry(model_id).registered.read()
        }

        fn get_model(self: @ContractState, model_id: felt252) -> Model {
            let entry = self.models.entry(model_id);
            assert(entry.registered.read(), 'registry.unknown_model');
            let mut commitments = array![];
            for i in 0..entry.commitments.len() {
                commitments.append(entry.commitments.at(i).read());
            }
            Model { config_hash: entry.config_hash.read(), commitments }
        }
    }
}
