//! Reader of a model walk's calldata, kind 5 (mirror of serializer/graph_calldata.py, in its
//! order): the header, Serde deserialization of the generated `GraphProof`, the tensors'
//! words, the maps' name order, then what the contract does not read on chain: a node kind
//! outside `graph_kind`, witness commitments on a kind without advice, public weights; the
//! committed weights' hash, roots and sizes; extra felts.

use crate::calldata::{KIND_GRAPH, VERSION, take_exact};
use crate::layers::{has_witness, layer_kind};
use crate::pcs::params::PcsParams;
use crate::walk::calldata::{check_names, committed_params, deserialize, names_of, read_committed, read_witness};
use crate::walk::proof::{GraphProof, Node};
use crate::walk::tensor::{Tensors, read_tensors};

/// A graph proof's Serde part as read: the proof, its public inputs and outputs and its
/// committed weights read as tensors (name order), each node's witness commitments, the
/// statement's felts (what `io_hash` hashes), the weights' PCS parameters (if any) and where
/// the openings' group parts start.
#[derive(Drop)]
pub struct GraphCalldata {
    pub proof: GraphProof,
    pub inputs: Tensors,
    pub outputs: Tensors,
    pub weights: Tensors,
    pub witness: Span<Tensors>,
    pub io: Span<felt252>,
    pub params: Option<PcsParams>,
    pub groups_at: u32,
}

/// The kinds a graph's node may be on chain (Python `GRAPH_KINDS`): every on-chain kind but
/// mha and qkv-decode, whose checks bound products of their inputs' values, which a hidden
/// tensor's bound alone does not give here.
pub fn graph_kind(kind: felt252) -> bool {
    let kinds = array![
        'linear', 'qkv', 'posenc', 'matmul', 'attn', 'requant', 'add', 'pool', 'embed',
    ];
    crate::walk::statement::contains(kinds.span(), kind)
}

/// The Serde part and its checks; the openings' group parts are left to the PCS reader,
/// after the walk is verified. Without an opening nothing may follow (`calldata.extra`).
pub fn read_graph(calldata: Span<felt252>) -> GraphCalldata {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_GRAPH, 'calldata.kind');
    let statement = deserialize(ref data);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let proof = GraphProof {
        statement,
        nodes: deserialize(ref data),
        inputs: deserialize(ref data),
        weights: deserialize(ref data),
        opening: deserialize(ref data),
        witness_opening: deserialize(ref data),
    };
    let g = @proof.statement;
    let inputs = read_tensors(g.inputs);
    let outputs = read_tensors(g.outputs);
    read_tensors(g.weights);
    for node in g.nodes.span() {
        check_node_names(node);
    }
    check_names(names_of(g.hidden));
    check_names(names_of(g.inputs));
    check_names(names_of(g.outputs));
    check_names(names_of(g.weights));
    check_names(names_of(g.committed));
    for node in proof.nodes.span() {
        check_names(names_of(node.outputs));
    }
    check_names(names_of(@proof.inputs));
    check_names(names_of(@proof.weights));
    let mut i = 0;
    let mut witness = array![];
    for node in g.nodes.span() {
        let kind = *node.kind;
        if let Some(p) = proof.nodes.get(i) {
            let (variant, _) = layer_kind(p.unbox().layer);
            assert(variant == kind, 'statement.kind');
        }
        assert(graph_kind(kind), 'calldata.offchain');
        assert(node.witness.is_empty() || has_witness(kind), 'calldata.offchain');
        witness.append(read_witness(node.witness.span()));
        i += 1;
    }
    assert(g.weights.is_empty(), 'calldata.offchain');
    let weights = read_committed(g.committed.span());
    let params = if g.committed.is_empty() {
        None
    } else {
        Some(committed_params(weights))
    };
    if (params.is_none() || proof.opening.is_none()) && proof.witness_opening.is_none() {
        assert(data.is_empty(), 'calldata.extra');
    }
    let groups_at = calldata.len() - data.len();
    GraphCalldata { proof, inputs, outputs, weights, witness: witness.span(), io, params, groups_at }
}

fn check_node_names(node: @Node) {
    check_names(names_of(node.inputs));
    check_names(names_of(node.outputs));
    check_names(names_of(node.weights));
    check_names(names_of(node.witness));
}
