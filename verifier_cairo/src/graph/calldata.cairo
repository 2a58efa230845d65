//! Reader of a model walk's calldata, kind 5 (mirror of serializer/graph_calldata.py, in its
//! order): the header and the statement — Serde deserialization of the generated
//! `GraphStatement`, the tensors' words, the maps' name order, then what the contract does not
//! read on chain: a node kind outside `graph_kind`, witness commitments on a kind without
//! advice, public weights; the committed weights' hash, roots and sizes. Then, as the walk
//! reaches them, one part per node (last first) and the settlement.

use crate::calldata::{KIND_GRAPH, VERSION, take_exact};
use crate::layers::{has_witness, layer_kind};
use crate::pcs::params::PcsParams;
use crate::walk::calldata::{check_names, committed_params, deserialize, names_of, read_committed, read_witness};
use crate::walk::proof::{GraphStatement, Node, NodeProof, Settlement};
use crate::walk::tensor::{Tensors, read_tensors};

/// A graph's statement as read: the statement, its public inputs and outputs and its
/// committed weights read as tensors (name order), each node's witness commitments, the
/// statement's felts (what `io_hash` hashes) and the weights' PCS parameters (if any).
#[derive(Drop)]
pub struct GraphCalldata {
    pub statement: GraphStatement,
    pub inputs: Tensors,
    pub outputs: Tensors,
    pub weights: Tensors,
    pub witness: Span<Tensors>,
    pub io: Span<felt252>,
    pub params: Option<PcsParams>,
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

/// The header and the statement (`read_statement`); `data` is left at the first part.
pub fn read_graph(ref data: Span<felt252>) -> GraphCalldata {
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_GRAPH, 'calldata.kind');
    read_statement(ref data)
}

/// The statement's Serde and its checks; `data` is left past it.
pub fn read_statement(ref data: Span<felt252>) -> GraphCalldata {
    let start = data;
    let statement: GraphStatement = deserialize(ref data);
    let io = start.slice(0, start.len() - data.len());
    let g = @statement;
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
    let mut witness = array![];
    for node in g.nodes.span() {
        let kind = *node.kind;
        assert(graph_kind(kind), 'calldata.offchain');
        assert(node.witness.is_empty() || has_witness(kind), 'calldata.offchain');
        witness.append(read_witness(node.witness.span()));
    }
    assert(g.weights.is_empty(), 'calldata.offchain');
    let weights = read_committed(g.committed.span());
    let params = if g.committed.is_empty() {
        None
    } else {
        Some(committed_params(weights))
    };
    GraphCalldata { statement, inputs, outputs, weights, witness: witness.span(), io, params }
}

/// A node's part: its Serde, its merges' names, and its layer proof's variant is the node's
/// `kind` (`statement.kind`).
pub fn read_node(ref data: Span<felt252>, kind: felt252) -> NodeProof {
    let proof: NodeProof = deserialize(ref data);
    check_names(names_of(@proof.outputs));
    let (variant, _) = layer_kind(@proof.layer);
    assert(variant == kind, 'statement.kind');
    proof
}

/// The settlement part: its Serde and its merges' names.
pub fn read_settlement(ref data: Span<felt252>) -> Settlement {
    let settlement: Settlement = deserialize(ref data);
    check_names(names_of(@settlement.inputs));
    check_names(names_of(@settlement.weights));
    settlement
}

fn check_node_names(node: @Node) {
    check_names(names_of(node.inputs));
    check_names(names_of(node.outputs));
    check_names(names_of(node.weights));
    check_names(names_of(node.witness));
}
