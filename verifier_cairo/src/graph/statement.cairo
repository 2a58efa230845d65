//! A model walk's statement (mirror of prover/graph/statement.py and views.py's
//! `check_structure`; docs/model-walk.md, "Structure" and "Transcript"): the graph's structure
//! checks and how it enters the transcript.

use crate::channels::base::Channel;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::layers::layer_reads;
use crate::pcs::transcript::PcsChannel;
use crate::walk::calldata::names_of;
use crate::walk::proof::{Named, Node};
use core::dict::{Felt252Dict, Felt252DictTrait};
use crate::walk::statement::{BINDING_TAG, absorb_public, absorb_shape, contains};
use crate::layers::range::relations::{Declared, DeclaredTrait, declaration_problem};
use crate::ranges::HALF;
use crate::walk::tensor::{Tensors, TensorsTrait, tensor_vars};
use super::calldata::{DeclaredWeight, GraphCalldata};

const TWO_248: u256 = 0x100000000000000000000000000000000000000000000000000000000000000;
const GRAPH_TAG: felt252 = 'cairn/graph/v1';

/// A hidden tensor's padded size is at most 2^24 entries (Python `MAX_HIDDEN_VARS`).
const MAX_HIDDEN_VARS: u32 = 24;

/// `graph.shape` unless `name` is 1–31 bytes of printable ASCII (Python `name_felt`): the
/// bytes of its u128 limbs, the low one whole when the high one is not empty.
fn expect_name(name: felt252) {
    let value: u256 = name.into();
    assert(value != 0 && value < TWO_248, 'graph.shape');
    if value.high == 0 {
        expect_printable(value.low, false);
    } else {
        expect_printable(value.low, true);
        expect_printable(value.high, false);
    }
}

/// Every byte of `limb` up to its highest non-zero one (all 16 when `whole`) printable.
fn expect_printable(limb: u128, whole: bool) {
    let (mut rest, mut count) = (limb, 0_u32);
    while rest != 0 || (whole && count < 16) {
        let byte = rest % 256;
        assert(byte >= 0x20 && byte <= 0x7e, 'graph.shape');
        rest /= 256;
        count += 1;
    }
}

/// A set of names (a dictionary: the structure checks look names up by the hundred in a
/// MiniLM graph, where a scan of a list each time costs 10^8 gas and more).
type Names = Felt252Dict<u8>;

fn names_set(names: Span<felt252>) -> Names {
    let mut set: Names = Default::default();
    for name in names {
        set.insert(*name, 1);
    }
    set
}

fn has(ref set: Names, name: felt252) -> bool {
    set.get(name) == 1
}

fn expect_names(names: Span<felt252>) {
    for name in names {
        expect_name(*name);
    }
}

fn expect_wiring(wiring: @Array<Named<felt252>>) {
    for entry in wiring.span() {
        expect_name(*entry.name);
        expect_name(*entry.value);
    }
}

/// The graph tensor a node's local name is wired to, if it is.
pub fn wired(wiring: @Array<Named<felt252>>, local: felt252) -> Option<felt252> {
    for entry in wiring.span() {
        if *entry.name == local {
            return Some(*entry.value);
        }
    }
    None
}

/// Python `check_structure` (`graph.shape`): a node; names well formed and distinct across
/// the inputs, outputs, hidden tensors and committed tensors; no hidden tensor, committed
/// input or committed output beyond 2^24 padded entries, and a committed one's size its
/// shape's; a node's local names distinct across its groups; nodes in topological order, every
/// tensor produced once (an input never), read after it is produced, and used; posenc's x and
/// o public; every weight known and read; hidden shapes given for exactly the produced tensors
/// that are not outputs; every declared weight a committed weight it can be declared of
/// (`graph.declared`); then a binding names a model and exactly the committed weights
/// (`statement.binding`). Every kind is known (the reader has checked).
pub fn check_structure(graph: @GraphCalldata) {
    let g = graph.statement;
    assert(!g.nodes.is_empty(), 'graph.shape');
    let (public_inputs, public_outputs) = (names_of(g.inputs), names_of(g.outputs));
    let (hidden, committed) = (names_of(g.hidden), names_of(g.committed));
    let (io_inputs, io_outputs) = (*graph.committed_inputs.names, *graph.committed_outputs.names);
    expect_names(public_inputs);
    expect_names(public_outputs);
    expect_names(hidden);
    expect_names(committed);
    expect_distinct(array![public_inputs, public_outputs, hidden, committed].span());
    for entry in g.hidden.span() {
        assert(tensor_vars(entry.value.span()) <= MAX_HIDDEN_VARS, 'graph.shape');
    }
    let (inputs, outputs) = (concat(public_inputs, io_inputs), concat(public_outputs, io_outputs));
    let unseen_names = concat(hidden, concat(io_inputs, io_outputs));
    let (mut input_set, mut output_set) = (names_set(inputs), names_set(outputs));
    let (mut hidden_set, mut committed_set) = (names_set(hidden), names_set(committed));
    let mut unseen = names_set(unseen_names);
    for group in array![*graph.committed_inputs, *graph.committed_outputs].span() {
        for t in *group.tensors {
            let n_vars = tensor_vars(*t.shape);
            assert(n_vars <= MAX_HIDDEN_VARS, 'graph.shape');
            assert((*t.commitment).unwrap().n_vars == n_vars, 'graph.shape');
        }
    }
    let mut produced_names = array![];
    let mut produced: Names = Default::default();
    let mut read: Names = Default::default();
    let mut weights_read: Names = Default::default();
    for node in g.nodes.span() {
        expect_wiring(node.inputs);
        expect_wiring(node.outputs);
        expect_wiring(node.weights);
        expect_distinct_locals(node);
        for entry in node.inputs.span() {
            let name = *entry.value;
            assert(has(ref produced, name) || has(ref input_set, name), 'graph.shape');
            read.insert(name, 1);
        }
        expect_public_reads(node, ref unseen);
        for entry in node.outputs.span() {
            let name = *entry.value;
            assert(!has(ref produced, name) && !has(ref input_set, name), 'graph.shape');
            produced.insert(name, 1);
            produced_names.append(name);
        }
        for entry in node.weights.span() {
            let name = *entry.value;
            assert(has(ref committed_set, name) && !has(ref unseen, name), 'graph.shape');
            weights_read.insert(name, 1);
        }
    }
    for name in inputs {
        assert(has(ref read, *name) || has(ref output_set, *name), 'graph.shape');
    }
    let mut hidden_count = 0;
    for name in produced_names.span() {
        let output = has(ref output_set, *name);
        assert(has(ref read, *name) || output, 'graph.shape');
        if !output {
            assert(has(ref hidden_set, *name), 'graph.shape');
            hidden_count += 1;
        }
    }
    for name in outputs {
        assert(has(ref produced, *name), 'graph.shape');
    }
    assert(hidden.len() == hidden_count, 'graph.shape');
    for name in committed {
        assert(has(ref weights_read, *name) || has(ref unseen, *name), 'graph.shape');
    }
    let mut i = 0;
    for w in *graph.declared {
        let name = *w.name;
        assert(has(ref committed_set, name) && !has(ref unseen, name), 'graph.declared');
        // Both lists are in name order: the weight's entry is found moving forward.
        while *committed[i] != name {
            i += 1;
        }
        expect_declarable(*w, *graph.committed.tensors[i].shape);
    }
    if let Some(b) = g.binding {
        let mut weights = array![];
        for name in committed {
            if !has(ref unseen, *name) {
                weights.append(*name);
            }
        }
        let named = names_of(b.weights) == weights.span();
        assert(*b.model_id != 0 && !weights.is_empty() && named, 'statement.binding');
    }
}

/// `graph.declared` unless a committed weight of `shape` can be declared as `w` is (Python
/// `WeightRange.problem`): the range kind's rules on its bits and shape, then, summed, its
/// largest column sum within what a padded column can sum to, itself ≤ (p−1)/2.
fn expect_declarable(w: DeclaredWeight, shape: Span<u32>) {
    let summed = w.col_max.is_some();
    assert(!declaration_problem(w.bits, summed, shape), 'graph.declared');
    if let Some(col_max) = w.col_max {
        let bound = Declared { bits: w.bits, summed, shape }.sums_bound();
        let half: u64 = HALF.try_into().unwrap();
        assert(col_max.into() <= bound && bound <= half, 'graph.declared');
    }
}

/// No name in two of the groups (each group's names are distinct: calldata.names).
fn expect_distinct(groups: Span<Span<felt252>>) {
    let mut seen: Names = Default::default();
    for group in groups {
        for name in *group {
            assert(!has(ref seen, *name), 'graph.shape');
            seen.insert(*name, 1);
        }
    }
}

fn concat(a: Span<felt252>, b: Span<felt252>) -> Span<felt252> {
    let mut out = array![];
    out.append_span(a);
    out.append_span(b);
    out.span()
}

/// A node's local names, distinct within each group (calldata.names), are distinct across its
/// inputs, outputs and weights: a weight named as an input would stand in for it.
fn expect_distinct_locals(node: @Node) {
    let (inputs, outputs) = (names_of(node.inputs), names_of(node.outputs));
    for name in names_of(node.weights) {
        assert(!contains(inputs, *name) && !contains(outputs, *name), 'graph.shape');
    }
    for name in outputs {
        assert(!contains(inputs, *name), 'graph.shape');
    }
}

/// A kind whose check reads a tensor's values (Python `LayerSpec.reads` and
/// `committable_reads`: layernorm's s1 and s2, posenc's x and o) must find them public, not
/// among `unseen`.
fn expect_public_reads(node: @Node, ref unseen: Names) {
    let mut locals = array![];
    locals.append_span(layer_reads(*node.kind));
    if *node.kind == 'posenc' {
        locals.append_span(array!['o', 'x'].span());
    }
    for local in locals.span() {
        // An output's wiring first: Python reads the merged wiring, outputs over inputs.
        let name = match wired(node.outputs, *local) {
            Some(name) => Some(name),
            None => wired(node.inputs, *local),
        };
        if let Some(name) = name {
            assert(!has(ref unseen, name), 'graph.shape');
        }
    }
}

/// 'cairn/<kind>/v1' (Python `domain_tag`).
fn domain_tag(kind: felt252) -> felt252 {
    let mut shift: felt252 = 1;
    let mut value: u256 = kind.into();
    while value != 0 {
        shift *= 256;
        value /= 256;
    }
    ('cairn/' * shift + kind) * 0x1000000 + '/v1'
}

fn absorb_wiring(ref channel: Poseidon252Channel, wiring: @Array<Named<felt252>>) {
    channel.mix_u64(wiring.len().into());
    for entry in wiring.span() {
        channel.mix_root(*entry.name);
        channel.mix_root(*entry.value);
    }
}

fn absorb_named(ref channel: Poseidon252Channel, tensors: Tensors) {
    channel.mix_u64(tensors.names.len().into());
    for name in tensors.names {
        channel.mix_root(*name);
    }
    absorb_public(ref channel, tensors);
}

/// Python `absorb_graph`: the binding, the structure, the hidden shapes, the weights
/// (committed: name, shape, root and size), the declared ranges (tagged, when there are any:
/// name, bits·2 + summed, the sums' shape and values), every node's witness commitments, the public
/// inputs and outputs, then the committed inputs and outputs (name order, as the weights) —
/// everything before the first challenge.
pub fn absorb_graph(ref channel: Poseidon252Channel, graph: @GraphCalldata) {
    let g = graph.statement;
    let committed = *graph.committed;
    let io = concat(*graph.committed_inputs.names, *graph.committed_outputs.names);
    channel.mix_root(GRAPH_TAG);
    if let Some(b) = g.binding {
        channel.mix_root(BINDING_TAG);
        channel.mix_root(*b.model_id);
        channel.mix_root(*b.config_hash);
        for entry in b.weights.span() {
            channel.mix_u64((*entry.value).into());
        }
    }
    channel.mix_u64(g.nodes.len().into());
    for node in g.nodes.span() {
        channel.mix_root(domain_tag(*node.kind));
        absorb_shape(ref channel, node.dims.span());
        absorb_wiring(ref channel, node.inputs);
        absorb_wiring(ref channel, node.outputs);
        absorb_wiring(ref channel, node.weights);
    }
    channel.mix_u64(g.hidden.len().into());
    for entry in g.hidden.span() {
        channel.mix_root(*entry.name);
        absorb_shape(ref channel, entry.value.span());
    }
    channel.mix_u64((committed.names.len() - io.len()).into());
    absorb_committed(ref channel, committed, io, false);
    if !graph.declared.is_empty() {
        channel.mix_root(domain_tag('declared'));
        channel.mix_u64(graph.declared.len().into());
    }
    for w in *graph.declared {
        channel.mix_root(*w.name);
        let summed: u64 = if w.col_max.is_some() {
            1
        } else {
            0
        };
        channel.mix_u64((*w.bits).into() * 2 + summed);
        if let Some(col_max) = *w.col_max {
            channel.mix_u64(col_max.into());
        }
    }
    for node_witness in *graph.witness {
        channel.mix_u64(node_witness.names.len().into());
        let mut i = 0;
        for c in node_witness.commitments() {
            channel.mix_root(*node_witness.names[i]);
            PcsChannel::mix_root(ref channel, *c.hash, *c.root);
            channel.mix_u64((*c.n_vars).into());
            i += 1;
        }
    }
    absorb_named(ref channel, *graph.inputs);
    absorb_named(ref channel, *graph.outputs);
    channel.mix_u64(io.len().into());
    absorb_committed(ref channel, committed, io, true);
}

/// Each committed tensor whose name is (`among`) or is not among `io`, in name order: its name,
/// shape, root and size.
fn absorb_committed(
    ref channel: Poseidon252Channel, committed: Tensors, io: Span<felt252>, among: bool,
) {
    let mut i = 0;
    for t in committed.tensors {
        let name = *committed.names[i];
        i += 1;
        if contains(io, name) != among {
            continue;
        }
        let c = (*t.commitment).unwrap();
        channel.mix_root(name);
        absorb_shape(ref channel, *t.shape);
        PcsChannel::mix_root(ref channel, c.hash, c.root);
        channel.mix_u64(c.n_vars.into());
    }
}
