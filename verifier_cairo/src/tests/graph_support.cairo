//! The graph class's path of the contract's `verify` without the contracts: read, verify the
//! model walk (its nodes in the walk classes, by library_call), then its openings (the fronts
//! in the front class: the witness opening's from its claims, its step parts read) from every
//! group part; returns the io hash.

use crate::graph::calldata::{read_graph, read_witness_steps};
use crate::graph::contract::{GraphStep, start_graph};
use crate::graph::statement::check_structure;
use crate::graph::verifier::{all_checked, check_next, no_checks, view};
use crate::pcs::contract::{FrontClass, FrontClassTrait};
use crate::walk::statement::PublicStatement;
use crate::walk::verifier::{continue_openings, verify_fronts, witness_fork};
use super::support::{classes, front_class};

pub fn verify_graph_calldata(calldata: Array<felt252>) -> felt252 {
    let proof = calldata.span();
    let outcome = match start_graph(proof, true, classes()) {
        GraphStep::Settled(outcome) => outcome,
        GraphStep::Walking(_) => core::panic_with_felt252('graph.shape'),
    };
    let mut data = proof.slice(outcome.groups_at, proof.len() - outcome.groups_at);
    let (mut phases, channel) = verify_fronts(outcome.openings, front_class());
    if let Some(w) = outcome.witness {
        let fronts = FrontClass { class_hash: front_class() };
        let child = witness_fork(@channel);
        let (hash, vars, roots) = (w.polys.hash, w.polys.poly_vars, w.polys.poly_roots);
        let replay = fronts.witness_start(hash, vars, roots, w.front, child);
        let n = w.polys.poly_vars.len();
        read_witness_steps(ref data, 0, n, true);
        read_witness_steps(ref data, 0, n, true);
        let (_, phase) = fronts.witness_steps(hash, replay, w.claims, w.claims);
        phases.append(phase.unwrap());
    }
    let _phases = continue_openings(phases, data, true);
    outcome.io_hash
}

/// Every node's statement as the graph class reads and checks it.
pub fn graph_views(calldata: Array<felt252>) -> Span<PublicStatement> {
    let mut data = calldata.span();
    let (graph, _) = read_graph(ref data);
    check_structure(@graph);
    let mut checks = no_checks();
    while !all_checked(@graph, @checks) {
        check_next(@graph, ref checks, classes());
    }
    let mut views = array![];
    for i in 0..graph.statement.nodes.len() {
        views.append(view(@graph, @checks, i));
    }
    views.span()
}

/// The keys of the declarations the graph relies on, which the main contract requires
/// certified.
pub fn graph_declared_keys(calldata: Array<felt252>) -> Span<felt252> {
    match start_graph(calldata.span(), true, classes()) {
        GraphStep::Settled(outcome) => outcome.declared,
        GraphStep::Walking(_) => core::panic_with_felt252('graph.shape'),
    }
}
