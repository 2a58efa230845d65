//! The public statement of a layer proof and how it enters the transcript (mirror of
//! prover/walk/statement.py): the kind's domain tag and dims, the binding, the committed
//! tensors (name, shape, root, size), the public weights, then the public inputs and outputs,
//! each tensor as its shape and its packed values, in name order.

use crate::channels::base::Channel;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::fields::qm31::QM31;
use crate::pcs::transcript::PcsChannel;
use crate::pcs::proof::Claim;
use super::layer::ClaimsOn;
use super::proof::{Named, Statement};
use super::tensor::{PublicTensor, Tensors, TensorsTrait, evaluate_tensor, read_tensors, tensor_vars};

/// A statement whose tensors are read (`read_statement`). Each group is as a kind's checks
/// read it: its public tensors and every committed tensor, in name order (a kind's names are
/// distinct across its groups, so `expect_shapes` places each committed tensor by its name);
/// `committed` holds the committed tensors alone, `witness` the layer's witness commitments
/// (commitments only, no shape).
#[derive(Copy, Drop, Serde)]
pub struct PublicStatement {
    pub kind: felt252,
    pub dims: Span<u32>,
    pub binding: Option<Binding>,
    pub inputs: Tensors,
    pub outputs: Tensors,
    pub weights: Tensors,
    pub committed: Tensors,
    pub witness: Tensors,
}

/// Which registered model's weights the committed weights are: model, config hash, and each
/// committed weight's index in the model's commitments (names in order).
#[derive(Copy, Drop, Serde)]
pub struct Binding {
    pub model_id: felt252,
    pub config_hash: felt252,
    pub names: Span<felt252>,
    pub indices: Span<u32>,
}

pub const BINDING_TAG: felt252 = 'cairn/binding/v1';

/// The binding as read: model, config hash, and the bound names with their indices.
pub fn read_binding(st: @Statement) -> Option<Binding> {
    match st.binding {
        Some(b) => {
            let (mut names, mut indices) = (array![], array![]);
            for entry in b.weights.span() {
                names.append(*entry.name);
                indices.append(*entry.value);
            }
            Some(
                Binding {
                    model_id: *b.model_id,
                    config_hash: *b.config_hash,
                    names: names.span(),
                    indices: indices.span(),
                },
            )
        },
        None => None,
    }
}

/// The public tensors of each group, read (the calldata reader adds the committed ones).
pub fn read_public(st: @Statement) -> (Tensors, Tensors, Tensors) {
    (read_tensors(st.inputs), read_tensors(st.outputs), read_tensors(st.weights))
}

pub fn absorb_shape(ref channel: Poseidon252Channel, shape: Span<u32>) {
    channel.mix_u64(shape.len().into());
    for d in shape {
        channel.mix_u64((*d).into());
    }
}

/// Each public tensor's shape, then its packed values (committed ones are absorbed apart).
pub fn absorb_public(ref channel: Poseidon252Channel, tensors: Tensors) {
    for t in tensors.tensors {
        if t.commitment.is_none() {
            absorb_shape(ref channel, *t.shape);
            channel.mix_m31s(*t.words);
        }
    }
}

/// Each committed tensor's name, shape, root and size.
fn absorb_committed(ref channel: Poseidon252Channel, committed: Tensors) {
    let mut i = 0;
    for t in committed.tensors {
        let c = (*t.commitment).unwrap();
        channel.mix_root(*committed.names[i]);
        absorb_shape(ref channel, *t.shape);
        PcsChannel::mix_root(ref channel, c.hash, c.root);
        channel.mix_u64(c.n_vars.into());
        i += 1;
    }
}

/// `domain_tag` is 'cairn/<kind>/v1'; the witness commitments (root and size, name order)
/// after the public weights.
pub fn absorb_statement(ref channel: Poseidon252Channel, st: @PublicStatement, domain_tag: felt252) {
    channel.mix_root(domain_tag);
    absorb_shape(ref channel, *st.dims);
    if let Some(b) = st.binding {
        channel.mix_root(BINDING_TAG);
        channel.mix_root(*b.model_id);
        channel.mix_root(*b.config_hash);
        for index in *b.indices {
            channel.mix_u64((*index).into());
        }
    }
    absorb_committed(ref channel, *st.committed);
    absorb_public(ref channel, *st.weights);
    for c in st.witness.commitments() {
        PcsChannel::mix_root(ref channel, *c.hash, *c.root);
        channel.mix_u64((*c.n_vars).into());
    }
    absorb_public(ref channel, *st.inputs);
    absorb_public(ref channel, *st.outputs);
}

/// The claims on the outputs, by name in name order.
#[derive(Copy, Drop, Serde)]
pub struct OutputClaims {
    pub names: Span<felt252>,
    pub claims: Span<Claim>,
}

/// r_out per public output and per committed output the proof sends a value for, in name
/// order, drawn after the statement; then those values absorbed (when there are any). A
/// public output's value is its MLE at r_out, a committed one's the proof's (the opening
/// proves it). `walk.output_values` for a value on a tensor that is not committed or is none
/// of the kind's `kind_outputs` (a public output is never committed: `calldata.names`).
pub fn draw_output_claims(
    ref channel: Poseidon252Channel,
    st: @PublicStatement,
    values: @Array<Named<QM31>>,
    kind_outputs: Span<felt252>,
) -> OutputClaims {
    for entry in values.span() {
        let found = (*st.committed).find(*entry.name);
        assert(found.is_some() && contains(kind_outputs, *entry.name), 'walk.output_values');
    }
    draw_claims(ref channel, *st.outputs, values)
}

/// r_out per tensor of `outputs` (public and committed, name order) that is public or that
/// `values` (name order) sends a value for, then those values absorbed (when there are any);
/// `walk.output_values` if a value is left unmatched.
pub fn draw_claims(
    ref channel: Poseidon252Channel, outputs: Tensors, values: @Array<Named<QM31>>,
) -> OutputClaims {
    let (mut names, mut claims, mut sent) = (array![], array![], array![]);
    let mut i = 0;
    let mut next = 0;
    for t in outputs.tensors {
        let name = *outputs.names[i];
        i += 1;
        let value = if t.commitment.is_none() {
            None
        } else if next < values.len() && *values[next].name == name {
            next += 1;
            Some(*values[next - 1].value)
        } else {
            continue;
        };
        let point = channel.draw_secure_felts(tensor_vars(*t.shape)).span();
        let value = match value {
            Some(v) => {
                sent.append(v);
                v
            },
            None => evaluate_tensor(t, point),
        };
        names.append(name);
        claims.append(Claim { point, value });
    }
    assert(next == values.len(), 'walk.output_values');
    if !sent.is_empty() {
        channel.mix_felts(sent.span());
    }
    OutputClaims { names: names.span(), claims: claims.span() }
}

/// The claim on the output `name`; `walk.output_values` if there is none (a committed output
/// the proof sent no value for: its shape the kind's check has fixed).
#[inline(never)]
pub fn output_claim(outputs: OutputClaims, name: felt252) -> Claim {
    let mut i = 0;
    for n in outputs.names {
        if *n == name {
            return *outputs.claims[i];
        }
        i += 1;
    }
    core::panic_with_felt252('walk.output_values')
}

/// `statement.shape` unless the group's public tensors and its committed tensors named in
/// `names` are exactly `names` (strictly increasing) with these shapes, and every such
/// commitment is of its shape's size.
#[inline(never)]
pub fn expect_shapes(group: Tensors, names: Span<felt252>, shapes: Span<Span<u32>>) {
    let (mut kept, mut kept_names) = (array![], array![]);
    let mut i = 0;
    for t in group.tensors {
        let name = *group.names[i];
        i += 1;
        if t.commitment.is_none() || contains(names, name) {
            kept.append(*t);
            kept_names.append(name);
        }
    }
    assert(kept_names.span() == names, 'statement.shape');
    let mut i = 0;
    for t in kept.span() {
        assert(*t.shape == *shapes[i], 'statement.shape');
        i += 1;
    }
    // Python's order: names, then shapes, then sizes (a huge dim is refused before its size).
    for t in kept {
        if let Some(c) = t.commitment {
            assert(c.n_vars == tensor_vars(t.shape), 'statement.shape');
        }
    }
}

pub fn contains(names: Span<felt252>, name: felt252) -> bool {
    for n in names {
        if *n == name {
            return true;
        }
    }
    false
}

/// `statement.binding` unless a binding names a model (not 0) and exactly the committed
/// tensors among the layer's weights (`weights`: its weight claims, in name order), at least
/// one (a binding without one would record a model the proof says nothing about).
pub fn expect_binding(st: @PublicStatement, weights: Span<ClaimsOn>) {
    if let Some(b) = st.binding {
        let mut committed = array![];
        for on in weights {
            if (*st.committed).find(*on.name).is_some() {
                committed.append(*on.name);
            }
        }
        assert(
            *b.model_id != 0 && !committed.is_empty() && *b.names == committed.span(),
            'statement.binding',
        );
    }
}

/// The tensor of a group the layer's check has fixed the shape of.
pub fn tensor(group: Tensors, name: felt252) -> PublicTensor {
    group.get(name)
}
