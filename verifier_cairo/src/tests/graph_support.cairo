//! The graph class's path of the contract's `verify` without the contracts: read, verify the
//! model walk (its nodes in the walk classes, by library_call), then its openings from every
//! group part; returns the io hash.

use crate::graph::calldata::read_graph;
use crate::graph::contract::{GraphStep, start_graph};
use crate::graph::verifier::check_graph_statement;
use crate::walk::statement::PublicStatement;
use crate::walk::verifier::verify_openings;
use super::support::classes;

pub fn verify_graph_calldata(calldata: Array<felt252>) -> felt252 {
    let proof = calldata.span();
    let outcome = match start_graph(proof, true, classes()) {
        GraphStep::Settled(outcome) => outcome,
        GraphStep::Walking(_) => core::panic_with_felt252('graph.shape'),
    };
    let data = proof.slice(outcome.groups_at, proof.len() - outcome.groups_at);
    let _phases = verify_openings(outcome.openings, data, true);
    outcome.io_hash
}

/// Every node's statement as the graph class reads and checks it.
pub fn graph_views(calldata: Array<felt252>) -> Span<PublicStatement> {
    let mut data = calldata.span();
    let (graph, _) = read_graph(ref data);
    check_graph_statement(@graph, classes()).views
}

/// The keys of the declarations the graph relies on, which the main contract requires
/// certified.
pub fn graph_declared_keys(calldata: Array<felt252>) -> Span<felt252> {
    match start_graph(calldata.span(), true, classes()) {
        GraphStep::Settled(outcome) => outcome.declared,
        GraphStep::Walking(_) => core::panic_with_felt252('graph.shape'),
    }
}
