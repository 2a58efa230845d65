//! The graph class's path of the contract's `verify` without the contracts: read, verify the
//! model walk (its nodes in the walk classes, by library_call), then its openings from every
//! group part; returns the io hash.

use crate::graph::contract::{GraphStep, start_graph};
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
