//! Reader of a model walk's calldata, kind 5 (mirror of serializer/graph_calldata.py, in its
//! order): the header and the statement — Serde deserialization of the generated
//! `GraphStatement`, the tensors' words, the maps' name order, then what the contract does not
//! read on chain: a node kind outside `graph_kind`, witness commitments on a kind without
//! advice, public weights; the committed tensors' hash, roots and sizes; then the committed
//! outputs' values. Then, as the walk reaches them, one check part per node (in order), one
//! part per node (last first), the settlement and the witness opening's front.

use core::dict::{Felt252Dict, Felt252DictTrait};
use crate::calldata::{KIND_GRAPH, VERSION, take_exact};
use crate::fields::qm31::QM31;
use crate::layers::{has_witness, layer_kind};
use crate::pcs::params::PcsParams;
use crate::walk::calldata::{check_names, committed_params, deserialize, names_of, read_committed, read_witness};
use crate::walk::proof::{GraphStatement, Named, Node, NodeProof, OpeningProof, Settlement};
use crate::walk::tensor::{Tensors, read_tensors};

/// A graph's statement as read: the statement, its public inputs and outputs and its
/// committed tensors read as tensors (name order) — all of them, and the committed inputs and
/// outputs among them (Python `GraphStatement.io`: what a node reads or writes as a tensor) —,
/// each node's witness commitments, the statement's felts (what `io_hash` hashes) and the
/// committed tensors' PCS parameters (if any).
#[derive(Drop)]
pub struct GraphCalldata {
    pub statement: GraphStatement,
    pub inputs: Tensors,
    pub outputs: Tensors,
    pub committed: Tensors,
    pub committed_inputs: Tensors,
    pub committed_outputs: Tensors,
    pub witness: Span<Tensors>,
    pub declared: Span<DeclaredWeight>,
    pub io: Span<felt252>,
    pub params: Option<PcsParams>,
}

/// A committed weight's declared range as read (Python `WeightRange`): its bits and, summed,
/// the largest of its column sums of |w|.
#[derive(Copy, Drop)]
pub struct DeclaredWeight {
    pub name: felt252,
    pub bits: u32,
    pub col_max: Option<u32>,
}

/// The kinds a graph's node may be on chain (Python `GRAPH_KINDS`): every on-chain kind but
/// mha and qkv-decode, whose checks bound products of their inputs' values, which a hidden
/// tensor's bound alone does not give here.
pub fn graph_kind(kind: felt252) -> bool {
    let kinds = array![
        'linear', 'qkv', 'posenc', 'matmul', 'attn', 'requant', 'add', 'pool', 'embed', 'gelu',
        'layernorm',
    ];
    crate::walk::statement::contains(kinds.span(), kind)
}

/// The header, the statement (`read_statement`) and the committed outputs' values (their
/// Serde and names' order); `data` is left at the first part.
pub fn read_graph(ref data: Span<felt252>) -> (GraphCalldata, Array<Named<QM31>>) {
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_GRAPH, 'calldata.kind');
    let graph = read_statement(ref data, true);
    let values: Array<Named<QM31>> = deserialize(ref data);
    check_names(names_of(@values));
    (graph, values)
}

/// The statement's Serde and, when `checked`, its checks: the names' order and what is not
/// verified on chain (`calldata.offchain`). A session's later transactions read again a
/// statement whose hash is the io hash its first transaction read with them: they skip them
/// (MiniLM's statement: 7.9·10^7 gas read with them, 2.0·10^7 without, in cairo-test's
/// estimate). `data` is left past it.
pub fn read_statement(ref data: Span<felt252>, checked: bool) -> GraphCalldata {
    let start = data;
    let statement: GraphStatement = deserialize(ref data);
    let io = start.slice(0, start.len() - data.len());
    let g = @statement;
    let inputs = read_tensors(g.inputs);
    let outputs = read_tensors(g.outputs);
    read_tensors(g.weights);
    let mut declared = array![];
    for entry in g.declared.span() {
        let (name, bits, col_max) = (*entry.name, *entry.value.bits, *entry.value.col_max);
        declared.append(DeclaredWeight { name, bits, col_max });
    }
    if checked {
        check_statement_names(g);
    }
    let mut witness = array![];
    for node in g.nodes.span() {
        let kind = *node.kind;
        assert(!checked || graph_kind(kind), 'calldata.offchain');
        assert(!checked || node.witness.is_empty() || has_witness(kind), 'calldata.offchain');
        witness.append(read_witness(node.witness.span()));
    }
    assert(!checked || g.weights.is_empty(), 'calldata.offchain');
    let committed = read_committed(g.committed.span());
    let params = if g.committed.is_empty() {
        None
    } else {
        Some(committed_params(committed))
    };
    let (committed_inputs, committed_outputs) = committed_io(g, committed);
    GraphCalldata {
        statement,
        inputs,
        outputs,
        committed,
        committed_inputs,
        committed_outputs,
        witness: witness.span(),
        declared: declared.span(),
        io,
        params,
    }
}

/// Every map's names in order.
fn check_statement_names(g: @GraphStatement) {
    for node in g.nodes.span() {
        check_node_names(node);
    }
    check_names(names_of(g.hidden));
    check_names(names_of(g.inputs));
    check_names(names_of(g.outputs));
    check_names(names_of(g.weights));
    check_names(names_of(g.committed));
    if let Some(b) = g.binding {
        check_names(names_of(b.weights));
    }
    check_names(names_of(g.declared));
}

/// The committed inputs and outputs among `committed` (name order): a committed tensor a node
/// writes is an output, one a node only reads as a tensor an input; the rest are weights.
fn committed_io(g: @GraphStatement, committed: Tensors) -> (Tensors, Tensors) {
    let mut read: Felt252Dict<u8> = Default::default();
    let mut written: Felt252Dict<u8> = Default::default();
    for node in g.nodes.span() {
        for entry in node.inputs.span() {
            read.insert(*entry.value, 1);
        }
        for entry in node.outputs.span() {
            written.insert(*entry.value, 1);
        }
    }
    let (mut in_names, mut in_tensors) = (array![], array![]);
    let (mut out_names, mut out_tensors) = (array![], array![]);
    let mut i = 0;
    for name in committed.names {
        if written.get(*name) == 1 {
            out_names.append(*name);
            out_tensors.append(*committed.tensors[i]);
        } else if read.get(*name) == 1 {
            in_names.append(*name);
            in_tensors.append(*committed.tensors[i]);
        }
        i += 1;
    }
    (
        Tensors { names: in_names.span(), tensors: in_tensors.span() },
        Tensors { names: out_names.span(), tensors: out_tensors.span() },
    )
}

/// A check part: the index of the node whose statement it checks, the next to check
/// (`calldata.check`).
pub fn read_check(ref data: Span<felt252>, next: u32) {
    take_exact(ref data, next.into(), 'calldata.check');
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

/// The settlement part: its Serde and its merges' and padding proofs' names.
pub fn read_settlement(ref data: Span<felt252>) -> Settlement {
    let settlement: Settlement = deserialize(ref data);
    check_names(names_of(@settlement.inputs));
    check_names(names_of(@settlement.weights));
    check_names(names_of(@settlement.padding));
    settlement
}

/// The witness opening's front, the part after the settlement: its Serde.
pub fn read_witness_front(ref data: Span<felt252>) -> Option<OpeningProof> {
    deserialize(ref data)
}

/// The witness opening's step parts after its front (docs/calldata.md, "Model walks"): one per
/// polynomial absorbed, then one per polynomial reduced, each the polynomial's index. Reads
/// those of polynomials `next`.. (below `n`) that `data` holds (all of them when `whole`),
/// each the next index (`calldata.witness`); returns how many.
pub fn read_witness_steps(ref data: Span<felt252>, next: u32, n: u32, whole: bool) -> u32 {
    let mut j = next;
    while j < n && (whole || !data.is_empty()) {
        take_exact(ref data, j.into(), 'calldata.witness');
        j += 1;
    }
    j - next
}

fn check_node_names(node: @Node) {
    check_names(names_of(node.inputs));
    check_names(names_of(node.outputs));
    check_names(names_of(node.weights));
    check_names(names_of(node.witness));
}
