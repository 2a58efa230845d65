//! The public statement of a layer proof and how it enters the transcript (mirror of
//! prover/walk/statement.py): the kind's domain tag and dims, the public weights, then the
//! inputs and outputs, each tensor as its shape and its packed values, in name order.

use crate::channel::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::merkle::hashers::mix_root;
use crate::pcs::proof::Claim;
use super::proof::Statement;
use super::tensor::{PublicTensor, Tensors, TensorsTrait, evaluate_tensor, read_tensors, tensor_vars};

/// A statement whose tensors are read (`read_statement`).
#[derive(Copy, Drop)]
pub struct PublicStatement {
    pub kind: felt252,
    pub dims: Span<u32>,
    pub binding: Option<Binding>,
    pub inputs: Tensors,
    pub outputs: Tensors,
    pub weights: Tensors,
}

/// Which registered model's weights the committed weights are: model, config hash, and each
/// committed weight's index in the model's commitments (names in order).
#[derive(Copy, Drop)]
pub struct Binding {
    pub model_id: felt252,
    pub config_hash: felt252,
    pub names: Span<felt252>,
    pub indices: Span<u32>,
}

const BINDING_TAG: felt252 = 'cairn/binding/v1';

/// Reads the tensors, group by group as the calldata carries them.
pub fn read_statement(st: @Statement) -> PublicStatement {
    let binding = match st.binding {
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
    };
    PublicStatement {
        kind: *st.kind,
        dims: st.dims.span(),
        binding,
        inputs: read_tensors(st.inputs),
        outputs: read_tensors(st.outputs),
        weights: read_tensors(st.weights),
    }
}

fn absorb_shape(ref channel: Poseidon252Channel, shape: Span<u32>) {
    channel.mix_u64(shape.len().into());
    for d in shape {
        channel.mix_u64((*d).into());
    }
}

/// Each tensor's shape, then its packed values, or (a committed weight) its root and size.
fn absorb_tensors(ref channel: Poseidon252Channel, tensors: Tensors) {
    for t in tensors.tensors {
        absorb_shape(ref channel, *t.shape);
        match t.commitment {
            Some(c) => {
                mix_root(ref channel, *c.hash, *c.root);
                channel.mix_u64((*c.n_vars).into());
            },
            None => channel.mix_m31s(*t.words),
        }
    }
}

/// `domain_tag` is 'cairn/<kind>/v1'. No witness commitments on chain (`read_walk`).
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
    absorb_tensors(ref channel, *st.weights);
    absorb_tensors(ref channel, *st.inputs);
    absorb_tensors(ref channel, *st.outputs);
}

/// r_out per output in name order, drawn after the statement; the value is the output's MLE.
pub fn draw_output_claims(ref channel: Poseidon252Channel, outputs: Tensors) -> Span<Claim> {
    let mut claims = array![];
    for t in outputs.tensors {
        let point = channel.draw_secure_felts(tensor_vars(*t.shape)).span();
        claims.append(Claim { point, value: evaluate_tensor(t, point) });
    }
    claims.span()
}

/// `statement.shape` unless the group holds exactly these names (strictly increasing) with
/// these shapes, and every committed weight's commitment is of its shape's size.
pub fn expect_shapes(group: Tensors, names: Span<felt252>, shapes: Span<Span<u32>>) {
    assert(group.names == names, 'statement.shape');
    let mut i = 0;
    for t in group.tensors {
        assert(*t.shape == *shapes[i], 'statement.shape');
        i += 1;
    }
    for t in group.tensors {
        if let Some(c) = t.commitment {
            assert(*c.n_vars == tensor_vars(*t.shape), 'statement.shape');
        }
    }
}

/// `statement.binding` unless a binding names a model (not 0) and exactly the committed
/// weights.
pub fn expect_binding(st: @PublicStatement) {
    if let Some(b) = st.binding {
        let mut committed = array![];
        let weights = *st.weights;
        let mut i = 0;
        for t in weights.tensors {
            if t.commitment.is_some() {
                committed.append(*weights.names[i]);
            }
            i += 1;
        }
        assert(*b.model_id != 0 && *b.names == committed.span(), 'statement.binding');
    }
}

/// The tensor of a group the layer's check has fixed the shape of.
pub fn tensor(group: Tensors, name: felt252) -> PublicTensor {
    group.get(name)
}
