//! The walk verifier as classes of their own, which `CairnVerifier` calls by `library_call`
//! (docs/cairo-verifier.md, "Five classes"): one contract holding the walk, its layers and
//! the PCS, registry and session paths would exceed mainnet's 81,920-felt bytecode limit, and
//! so would one walk class with every kind. `CairnWalkVerifier` verifies the dense kinds,
//! `CairnAttentionVerifier` the attention kinds, `CairnEncoderVerifier` the encoder's others
//! (`layers::walk_class`), all with the same walk.
//! They have no storage and no side effect: each reads and verifies a walk proof up to its
//! committed tensors' opening, and returns what the main contract verifies (the opening, with
//! the PCS verifier it has for kind 2), checks against its registry and records.

use core::poseidon::poseidon_hash_span;
use crate::calldata::commitment_entry;
use crate::layers::{Classes, LayerSet};
use crate::walk::calldata::read_walk;
use crate::walk::tensor::TensorsTrait;
use crate::walk::verifier::{WalkOpenings, verify_walk};

/// What a verified walk leaves to the main contract: the hash of its statement's felts, its
/// binding to a registered model with each committed weight's expected registry entry, and
/// the openings still to verify (the committed tensors', then the witness opening), whose
/// group parts start at `groups_at`.
#[derive(Drop, Serde)]
pub struct WalkOutcome {
    pub io_hash: felt252,
    pub binding: Option<BindingCheck>,
    pub openings: WalkOpenings,
    pub groups_at: u32,
}

/// A binding to check against the registry: per committed weight (in name order), its index
/// in the model's commitments and the entry it must find there.
#[derive(Drop, Serde)]
pub struct BindingCheck {
    pub model_id: felt252,
    pub config_hash: felt252,
    pub weights: Array<(u32, Array<felt252>)>,
}

#[starknet::interface]
pub trait ICairnWalkVerifier<TContractState> {
    /// Reads and verifies the walk up to its committed weights' opening, calling `classes`
    /// where a kind needs them; panics with the name of the failed check.
    fn verify_walk(self: @TContractState, proof: Span<felt252>, classes: Classes) -> WalkOutcome;
}

/// Reads and verifies a walk proof of one of `L`'s kinds up to its opening.
pub fn walk_outcome<impl L: LayerSet>(proof: Span<felt252>, classes: Classes) -> WalkOutcome {
    let walk = read_walk(proof);
    let openings = verify_walk::<L>(@walk, classes);
    let st = walk.statement;
    let binding = match st.binding {
        Some(b) => {
            let mut weights = array![];
            let mut i = 0;
            for name in b.names {
                let t = st.committed.get(*name);
                let c = t.commitment.unwrap();
                weights.append((*b.indices[i], commitment_entry(c.hash, c.root, t.shape)));
                i += 1;
            }
            Some(BindingCheck { model_id: b.model_id, config_hash: b.config_hash, weights })
        },
        None => None,
    };
    WalkOutcome {
        io_hash: poseidon_hash_span(walk.io), binding, openings, groups_at: walk.groups_at,
    }
}

#[starknet::contract]
pub mod CairnWalkVerifier {
    use crate::layers::{Classes, DenseLayers};
    use super::{WalkOutcome, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnWalkVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<DenseLayers>(proof, classes)
        }
    }
}

#[starknet::contract]
pub mod CairnAttentionVerifier {
    use crate::layers::{Classes, AttentionLayers};
    use super::{WalkOutcome, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnAttentionVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<AttentionLayers>(proof, classes)
        }
    }
}

#[starknet::contract]
pub mod CairnEncoderVerifier {
    use crate::layers::{Classes, EncoderLayers};
    use super::{WalkOutcome, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnEncoderVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<EncoderLayers>(proof, classes)
        }
    }
}
