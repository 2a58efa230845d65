//! The graph class's path of the contract's `verify` without the contracts: read, verify the
//! model walk (its nodes in the walk classes, by library_call), then its openings from every
//! group part; returns the io hash.

use core::poseidon::poseidon_hash_span;
use crate::graph::calldata::read_graph;
use crate::graph::verifier::verify_graph;
use crate::walk::verifier::verify_openings;
use super::support::classes;

pub fn verify_graph_calldata(calldata: Array<felt252>) -> felt252 {
    let proof = calldata.span();
    let graph = read_graph(proof);
    let openings = verify_graph(@graph, classes());
    let data = proof.slice(graph.groups_at, proof.len() - graph.groups_at);
    let _phases = verify_openings(openings, data, true);
    poseidon_hash_span(graph.io)
}
