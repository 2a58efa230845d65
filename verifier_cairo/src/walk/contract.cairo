//! The walk verifier as classes of their own, which `CairnVerifier` calls by `library_call`
//! (docs/cairo-verifier.md, "Eight classes"): one contract holding the walk, its layers and
//! the PCS, registry and session paths would exceed mainnet's 81,920-felt bytecode limit, and
//! so would one walk class with every kind. `CairnWalkVerifier` verifies the dense kinds,
//! `CairnAttentionVerifier` the attention kinds, `CairnEncoderVerifier` the encoder's others,
//! `CairnRangeVerifier` range (`layers::walk_class`), all with the same walk.
//! They have no storage and no side effect: each reads and verifies a walk proof up to its
//! committed tensors' opening, and returns what the main contract verifies (the opening, with
//! the PCS verifier it has for kind 2), checks against its registry and records.

use core::poseidon::poseidon_hash_span;
use crate::calldata::commitment_entry;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::layers::{Classes, LayerSet};
use crate::walk::layer::LayerClaims;
use crate::walk::proof::LayerProof;
use crate::walk::statement::{OutputClaims, PublicStatement};
use crate::walk::tensor::{Bound, TensorCommitment};
use crate::walk::calldata::read_walk;
use crate::walk::tensor::TensorsTrait;
use crate::walk::verifier::{WalkOpenings, verify_walk};

/// What a verified walk leaves to the main contract: the hash of its statement's felts, its
/// binding to a registered model with each committed weight's expected registry entry, the
/// declarations it certifies (`LayerSet::certified`), those it relies on (a model walk's
/// declared weights: each must have been certified before), and the openings still to verify
/// (the committed tensors', then the witness opening), whose group parts start at `groups_at`.
#[derive(Drop, Serde)]
pub struct WalkOutcome {
    pub io_hash: felt252,
    pub binding: Option<BindingCheck>,
    pub certified: Span<felt252>,
    pub declared: Span<felt252>,
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

/// What a model walk learns from a node's statement check (docs/model-walk.md): the node's
/// error terms (`LayerSet::check_layer`), per output in name order the bound a consumer may
/// assume, and the kind's fixed tables.
#[derive(Drop, Serde)]
pub struct NodeCheck {
    pub error_count: Option<u128>,
    pub bounds: Span<Option<Bound>>,
    pub tables: Span<(felt252, TensorCommitment)>,
}

#[starknet::interface]
pub trait ICairnWalkVerifier<TContractState> {
    /// Reads and verifies the walk up to its committed weights' opening, calling `classes`
    /// where a kind needs them; panics with the name of the failed check.
    fn verify_walk(self: @TContractState, proof: Span<felt252>, classes: Classes) -> WalkOutcome;
    /// A model walk's node of kind `kind` (its statement as the graph's verifier sees it): the
    /// kind's statement check, then what the walk needs of it.
    fn check_node(
        self: @TContractState, kind: felt252, st: PublicStatement, classes: Classes,
    ) -> NodeCheck;
    /// A model walk's node: the layer's verifier on the walk's channel, from the claims on its
    /// outputs to those it leaves; returns them and the channel.
    fn verify_node(
        self: @TContractState,
        layer: LayerProof,
        st: PublicStatement,
        outputs: OutputClaims,
        channel: Poseidon252Channel,
        classes: Classes,
    ) -> (LayerClaims, Poseidon252Channel);
}

pub fn node_check<impl L: LayerSet>(kind: felt252, st: @PublicStatement, classes: Classes) -> NodeCheck {
    let error_count = L::check_layer(kind, st, classes);
    NodeCheck { error_count, bounds: L::output_bounds(kind, st), tables: L::tables(kind, st) }
}

pub fn node_claims<impl L: LayerSet>(
    layer: @LayerProof,
    st: @PublicStatement,
    outputs: OutputClaims,
    channel: Poseidon252Channel,
    classes: Classes,
) -> (LayerClaims, Poseidon252Channel) {
    let mut channel = channel;
    let claims = L::verify_layer(layer, st, outputs, ref channel, classes);
    (claims, channel)
}

/// Reads and verifies a walk proof of one of `L`'s kinds up to its opening.
pub fn walk_outcome<impl L: LayerSet>(proof: Span<felt252>, classes: Classes) -> WalkOutcome {
    let walk = read_walk(proof);
    let openings = verify_walk::<L>(@walk, classes);
    let certified = L::certified(walk.statement.kind, @walk.statement);
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
        io_hash: poseidon_hash_span(walk.io),
        binding,
        certified,
        declared: array![].span(),
        openings,
        groups_at: walk.groups_at,
    }
}

#[starknet::contract]
pub mod CairnWalkVerifier {
    use crate::channels::poseidon252::Poseidon252Channel;
    use crate::layers::{Classes, DenseLayers};
    use crate::walk::layer::LayerClaims;
    use crate::walk::proof::LayerProof;
    use crate::walk::statement::{OutputClaims, PublicStatement};
    use super::{NodeCheck, WalkOutcome, node_check, node_claims, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnWalkVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<DenseLayers>(proof, classes)
        }

        fn check_node(
            self: @ContractState, kind: felt252, st: PublicStatement, classes: Classes,
        ) -> NodeCheck {
            node_check::<DenseLayers>(kind, @st, classes)
        }

        fn verify_node(
            self: @ContractState,
            layer: LayerProof,
            st: PublicStatement,
            outputs: OutputClaims,
            channel: Poseidon252Channel,
            classes: Classes,
        ) -> (LayerClaims, Poseidon252Channel) {
            node_claims::<DenseLayers>(@layer, @st, outputs, channel, classes)
        }
    }
}

#[starknet::contract]
pub mod CairnAttentionVerifier {
    use crate::channels::poseidon252::Poseidon252Channel;
    use crate::layers::{Classes, AttentionLayers};
    use crate::walk::layer::LayerClaims;
    use crate::walk::proof::LayerProof;
    use crate::walk::statement::{OutputClaims, PublicStatement};
    use super::{NodeCheck, WalkOutcome, node_check, node_claims, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnAttentionVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<AttentionLayers>(proof, classes)
        }

        fn check_node(
            self: @ContractState, kind: felt252, st: PublicStatement, classes: Classes,
        ) -> NodeCheck {
            node_check::<AttentionLayers>(kind, @st, classes)
        }

        fn verify_node(
            self: @ContractState,
            layer: LayerProof,
            st: PublicStatement,
            outputs: OutputClaims,
            channel: Poseidon252Channel,
            classes: Classes,
        ) -> (LayerClaims, Poseidon252Channel) {
            node_claims::<AttentionLayers>(@layer, @st, outputs, channel, classes)
        }
    }
}

#[starknet::contract]
pub mod CairnEncoderVerifier {
    use crate::channels::poseidon252::Poseidon252Channel;
    use crate::layers::{Classes, EncoderLayers};
    use crate::walk::layer::LayerClaims;
    use crate::walk::proof::LayerProof;
    use crate::walk::statement::{OutputClaims, PublicStatement};
    use super::{NodeCheck, WalkOutcome, node_check, node_claims, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnEncoderVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<EncoderLayers>(proof, classes)
        }

        fn check_node(
            self: @ContractState, kind: felt252, st: PublicStatement, classes: Classes,
        ) -> NodeCheck {
            node_check::<EncoderLayers>(kind, @st, classes)
        }

        fn verify_node(
            self: @ContractState,
            layer: LayerProof,
            st: PublicStatement,
            outputs: OutputClaims,
            channel: Poseidon252Channel,
            classes: Classes,
        ) -> (LayerClaims, Poseidon252Channel) {
            node_claims::<EncoderLayers>(@layer, @st, outputs, channel, classes)
        }
    }
}

#[starknet::contract]
pub mod CairnRangeVerifier {
    use crate::channels::poseidon252::Poseidon252Channel;
    use crate::layers::{Classes, RangeLayers};
    use crate::walk::layer::LayerClaims;
    use crate::walk::proof::LayerProof;
    use crate::walk::statement::{OutputClaims, PublicStatement};
    use super::{NodeCheck, WalkOutcome, node_check, node_claims, walk_outcome};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnRangeVerifierImpl of super::ICairnWalkVerifier<ContractState> {
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            walk_outcome::<RangeLayers>(proof, classes)
        }

        fn check_node(
            self: @ContractState, kind: felt252, st: PublicStatement, classes: Classes,
        ) -> NodeCheck {
            node_check::<RangeLayers>(kind, @st, classes)
        }

        fn verify_node(
            self: @ContractState,
            layer: LayerProof,
            st: PublicStatement,
            outputs: OutputClaims,
            channel: Poseidon252Channel,
            classes: Classes,
        ) -> (LayerClaims, Poseidon252Channel) {
            node_claims::<RangeLayers>(@layer, @st, outputs, channel, classes)
        }
    }
}
