//! The model-walk verifier as a class of its own, which `CairnVerifier` calls by library_call
//! for calldata of kind 5 (docs/cairo-verifier.md, "Six classes"): it reads and verifies a
//! graph proof up to its openings, calling each node's walk class for the node's statement
//! check and layer verifier. No storage, no side effect.

use core::poseidon::poseidon_hash_span;
use crate::layers::Classes;
use crate::walk::contract::WalkOutcome;
use super::calldata::read_graph;
use super::verifier::verify_graph;

#[starknet::interface]
pub trait ICairnGraphVerifier<TContractState> {
    /// Reads and verifies the model walk up to its openings; panics with the name of the
    /// failed check. A graph is bound to no model (`binding` None).
    fn verify_graph(self: @TContractState, proof: Span<felt252>, classes: Classes) -> WalkOutcome;
}

pub fn graph_outcome(proof: Span<felt252>, classes: Classes) -> WalkOutcome {
    let graph = read_graph(proof);
    let openings = verify_graph(@graph, classes);
    WalkOutcome {
        io_hash: poseidon_hash_span(graph.io), binding: None, openings, groups_at: graph.groups_at,
    }
}

#[starknet::contract]
pub mod CairnGraphVerifier {
    use crate::layers::Classes;
    use crate::walk::contract::WalkOutcome;
    use super::graph_outcome;

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnGraphVerifierImpl of super::ICairnGraphVerifier<ContractState> {
        fn verify_graph(
            self: @ContractState, proof: Span<felt252>, classes: Classes,
        ) -> WalkOutcome {
            graph_outcome(proof, classes)
        }
    }
}
