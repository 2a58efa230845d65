//! The model-walk verifier as a class of its own, which `CairnVerifier` calls by library_call
//! for calldata of kind 5 (docs/cairo-verifier.md, "Seven classes"): it reads and verifies a
//! graph proof up to its openings part by part, calling each node's walk class for the node's
//! statement check and layer verifier; a session's transaction may stop between any two parts
//! (`GraphStep::Walking`). No storage, no side effect.

use core::poseidon::poseidon_hash_span;
use crate::calldata::commitment_entry;
use crate::layers::Classes;
use crate::layers::range::model::declaration_key;
use crate::walk::contract::{BindingCheck, WalkOutcome};
use crate::walk::tensor::TensorsTrait;
use super::calldata::{GraphCalldata, read_graph, read_node, read_settlement, read_statement};
use super::verifier::{
    Checked, GraphWalk, check_graph_statement, settle, start, step, walk_views,
};

/// Where a transaction leaves a model walk: part way, with its io hash and its `GraphWalk` by
/// Serde (what the session carries), or settled, with what is left to verify.
#[derive(Drop, Serde)]
pub enum GraphStep {
    Walking: (felt252, Span<felt252>),
    Settled: WalkOutcome,
}

#[starknet::interface]
pub trait ICairnGraphVerifier<TContractState> {
    /// Reads the header, statement and committed outputs' values of `proof`, checks the
    /// statement, starts the walk and verifies
    /// the parts that follow (all of them when `whole`: the nodes, last first, then the
    /// settlement); panics with the name of the failed check. A graph's binding, if any, goes
    /// to the main contract to check against the registry; `groups_at` counts from the start of
    /// `proof`.
    fn start_graph(
        self: @TContractState, proof: Span<felt252>, whole: bool, classes: Classes,
    ) -> GraphStep;
    /// Continues the walk `walk` (a `GraphWalk` by Serde) with the next `parts`: the statement
    /// is read again from the walk's felts and the views of the nodes still to walk rebuilt
    /// (`walk_views`); `groups_at` counts from the start of `parts`. The statement is not
    /// checked whole again: the caller passes only a state its session stored the hash of,
    /// which `start_graph` made after checking it.
    fn continue_graph(
        self: @TContractState, walk: Span<felt252>, parts: Span<felt252>, classes: Classes,
    ) -> GraphStep;
}

pub fn start_graph(proof: Span<felt252>, whole: bool, classes: Classes) -> GraphStep {
    let mut data = proof;
    let (graph, values) = read_graph(ref data);
    let checked = check_graph_statement(@graph, classes);
    let walk = start(@graph, @values);
    walk_parts(@graph, @checked, walk, data, whole, classes, proof.len())
}

pub fn continue_graph(walk: Span<felt252>, parts: Span<felt252>, classes: Classes) -> GraphStep {
    let mut state = walk;
    let walk: GraphWalk = Serde::deserialize(ref state).unwrap();
    let mut statement = walk.statement;
    let graph = read_statement(ref statement);
    let checked = walk_views(@graph, classes, walk.left);
    walk_parts(@graph, @checked, walk, parts, false, classes, parts.len())
}

/// Reads and verifies the parts in `data` (all of them when `whole`): the nodes' until none
/// is left, then the settlement; `total` is the length of the span `data` ends.
fn walk_parts(
    graph: @GraphCalldata,
    checked: @Checked,
    walk: GraphWalk,
    data: Span<felt252>,
    whole: bool,
    classes: Classes,
    total: u32,
) -> GraphStep {
    let mut data = data;
    let mut walk = walk;
    while walk.left > 0 && (whole || !data.is_empty()) {
        let node_proof = read_node(ref data, *graph.statement.nodes[walk.left - 1].kind);
        walk = step(walk, graph, checked, @node_proof, classes);
    }
    let io_hash = poseidon_hash_span(*graph.io);
    if walk.left > 0 || (!whole && data.is_empty()) {
        let mut state = array![];
        walk.serialize(ref state);
        return GraphStep::Walking((io_hash, state.span()));
    }
    let settlement = read_settlement(ref data);
    let openings = settle(walk, graph, @settlement);
    let binding = binding_check(graph);
    let (certified, declared) = (array![].span(), declared_keys(graph));
    GraphStep::Settled(
        WalkOutcome {
            io_hash, binding, certified, declared, openings, groups_at: total - data.len(),
        },
    )
}

/// The keys of the graph's declarations (name order), each of which a verified range walk
/// must have certified (docs/registry.md, "Certified declarations").
fn declared_keys(graph: @GraphCalldata) -> Span<felt252> {
    let mut keys = array![];
    for w in *graph.declared {
        let t = graph.committed.get(*w.name);
        keys.append(declaration_key(t.commitment.unwrap(), t.shape, *w.bits, *w.col_max));
    }
    keys.span()
}

/// The graph's binding as the main contract checks it against the registry: per committed
/// weight (name order) its index and the entry its commitment must be.
fn binding_check(graph: @GraphCalldata) -> Option<BindingCheck> {
    let b = match graph.statement.binding {
        Some(b) => b,
        None => { return None; },
    };
    let mut weights = array![];
    for entry in b.weights.span() {
        let t = graph.committed.get(*entry.name);
        let c = t.commitment.unwrap();
        weights.append((*entry.value, commitment_entry(c.hash, c.root, t.shape)));
    }
    Some(BindingCheck { model_id: *b.model_id, config_hash: *b.config_hash, weights })
}

#[starknet::contract]
pub mod CairnGraphVerifier {
    use crate::layers::Classes;
    use super::GraphStep;

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnGraphVerifierImpl of super::ICairnGraphVerifier<ContractState> {
        fn start_graph(
            self: @ContractState, proof: Span<felt252>, whole: bool, classes: Classes,
        ) -> GraphStep {
            super::start_graph(proof, whole, classes)
        }

        fn continue_graph(
            self: @ContractState, walk: Span<felt252>, parts: Span<felt252>, classes: Classes,
        ) -> GraphStep {
            super::continue_graph(walk, parts, classes)
        }
    }
}
