//! Each node's layer statement as the verifier can know it (mirror of prover/graph/views.py;
//! docs/model-walk.md, "What the verifier knows of a hidden tensor"): public inputs and
//! outputs as they are, committed weights by their commitments, and a hidden tensor by the
//! bound its producer's checked relations give every entry (`Known::AtMost`) or by nothing.
//! Python fills a hidden tensor with its bound and runs the kinds' checks on that worst case;
//! the kinds' checks here read the bound itself (`PublicTensorTrait::max_magnitude`, pool's
//! column sums), which is what they compute on the filled tensor.

use crate::layers::range::relations::{Declared, DeclaredTrait};
use crate::ranges::HALF;
use crate::walk::calldata::with_committed;
use crate::walk::proof::{Named, Node};
use crate::walk::statement::PublicStatement;
use crate::walk::tensor::{Bound, DeclaredRange, Known, PublicTensor, Tensors, TensorsTrait};
use super::calldata::GraphCalldata;

/// What is known of each hidden tensor produced so far, by graph name.
pub type Bounds = Array<(felt252, Known)>;

/// A producer's bound as its consumers read it: beyond (p−1)/2 the producer's own check has
/// refused, so the fill stops just past it (Python `_worst`); no bound: nothing known.
pub fn known_of(bound: Option<Bound>) -> Known {
    match bound {
        Some(b) => Known::AtMost(Bound { max: core::cmp::min(b.max, HALF + 1), row_sq: b.row_sq }),
        None => Known::Nothing,
    }
}

/// A committed weight as a node reads it: by its commitment and, if the graph declares its
/// range, at that range (Python `WeightRange.worst`): every |w| ≤ its declared magnitude, every
/// column's Σ|w| ≤ its declared largest column sum, or, not summed, the rows' count times that.
fn graph_weight(graph: @GraphCalldata, name: felt252) -> PublicTensor {
    let mut t = graph.committed.get(name);
    for w in *graph.declared {
        if *w.name == name {
            let shape = t.shape;
            let d = Declared { bits: *w.bits, summed: w.col_max.is_some(), shape };
            let magnitude: u128 = d.magnitude().into();
            let col_abs = match *w.col_max {
                Some(col_max) => col_max.into(),
                None => magnitude * (*shape[shape.len() - core::cmp::min(shape.len(), 2)]).into(),
            };
            t.known = Known::Declared(DeclaredRange { magnitude, col_abs });
        }
    }
    t
}

fn known_in(bounds: @Bounds, name: felt252) -> Known {
    for entry in bounds.span() {
        let (n, known) = *entry;
        if n == name {
            return known;
        }
    }
    Known::Nothing
}

/// The shape of a tensor whose values the statement does not hold: hidden, or a committed
/// input or output (Python `GraphStatement.unseen`).
pub fn unseen_shape(graph: @GraphCalldata, name: felt252) -> Span<u32> {
    for entry in graph.statement.hidden.span() {
        if *entry.name == name {
            return entry.value.span();
        }
    }
    graph.committed.get(name).shape
}

/// The graph tensor `name` as a node reads it: public; a committed input by its commitment
/// (a layer walk's committed input to the node); or hidden — a committed output too — at what
/// is known of it (its producer's bound: the opening binds the commitment to what the producer
/// proved).
fn graph_tensor(graph: @GraphCalldata, bounds: @Bounds, name: felt252) -> PublicTensor {
    if let Some(t) = graph.inputs.find(name) {
        return t;
    }
    if let Some(t) = graph.outputs.find(name) {
        return t;
    }
    if let Some(t) = graph.committed_inputs.find(name) {
        return t;
    }
    PublicTensor {
        shape: unseen_shape(graph, name),
        words: array![].span(),
        values: array![].span(),
        commitment: None,
        known: known_in(bounds, name),
    }
}

fn group(
    graph: @GraphCalldata, bounds: @Bounds, wiring: @Array<Named<felt252>>, weights: bool,
) -> Tensors {
    let (mut names, mut tensors) = (array![], array![]);
    for entry in wiring.span() {
        names.append(*entry.name);
        tensors
            .append(
                if weights {
                    graph_weight(graph, *entry.value)
                } else {
                    graph_tensor(graph, bounds, *entry.value)
                },
            );
    }
    Tensors { names: names.span(), tensors: tensors.span() }
}

/// Node `index`'s statement (Python `_worst_case`): its tensors under its own names, a hidden
/// input at its producer's bound (`bounds` may hold later nodes' too: a node reads only
/// earlier ones'); its own hidden outputs known by nothing (no on-chain kind's check reads its
/// own output's values: posenc's o must be public), as when it was checked. A graph's weights
/// are committed on chain: they and the node's committed inputs are its committed tensors.
pub fn node_statement(graph: @GraphCalldata, bounds: @Bounds, index: u32) -> PublicStatement {
    let node: @Node = graph.statement.nodes[index];
    let weights = group(graph, bounds, node.weights, true);
    let inputs = group(graph, bounds, node.inputs, false);
    let (mut names, mut tensors) = (array![], array![]);
    let mut i = 0;
    for t in inputs.tensors {
        if t.commitment.is_some() {
            names.append(*inputs.names[i]);
            tensors.append(*t);
        }
        i += 1;
    }
    let committed = Tensors { names: names.span(), tensors: tensors.span() };
    PublicStatement {
        kind: *node.kind,
        dims: node.dims.span(),
        binding: None,
        inputs,
        outputs: group(graph, @array![], node.outputs, false),
        weights,
        committed: with_committed(weights, committed),
        witness: *graph.witness[index],
    }
}
