//! The layer kinds a walk proof can carry on chain (mirror of prover/layers/registry.py for
//! `ONCHAIN_KINDS`): each kind's statement check and verifier, one module per kind.

use starknet::ClassHash;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::lookups::contract::LookupClass;
use crate::walk::layer::LayerClaims;
use crate::walk::proof::LayerProof;
use crate::walk::statement::{OutputClaims, PublicStatement};
use crate::walk::tensor::TensorCommitment;
use projection::ProjectionsTrait;

pub mod add;
pub mod attn;
pub mod embed;
pub mod kvcache;
pub mod mha;
pub mod pool;
pub mod posenc;
pub mod projection;
pub mod requant;

/// The kind's name (a statement's `kind`) and its transcript domain tag 'cairn/<kind>/v1'.
pub fn layer_kind(layer: @LayerProof) -> (felt252, felt252) {
    match layer {
        LayerProof::Linear(_) => ('linear', 'cairn/linear/v1'),
        LayerProof::Qkv(_) => ('qkv', 'cairn/qkv/v1'),
        LayerProof::QkvDecode(_) => ('qkv-decode', 'cairn/qkv-decode/v1'),
        LayerProof::Mha(_) => ('mha', 'cairn/mha/v1'),
        LayerProof::Posenc(_) => ('posenc', 'cairn/posenc/v1'),
        LayerProof::Matmul(_) => ('matmul', 'cairn/matmul/v1'),
        LayerProof::Attn(_) => ('attn', 'cairn/attn/v1'),
        LayerProof::Requant(_) => ('requant', 'cairn/requant/v1'),
        LayerProof::Add(_) => ('add', 'cairn/add/v1'),
        LayerProof::Pool(_) => ('pool', 'cairn/pool/v1'),
        LayerProof::Embed(_) => ('embed', 'cairn/embed/v1'),
    }
}

/// The kind's output names (Python `LayerSpec.outputs`): a proof may send a committed
/// output's value for these only.
pub fn layer_outputs(layer: @LayerProof) -> Span<felt252> {
    match layer {
        LayerProof::Linear(_) => projection::linear().output_names(),
        LayerProof::Qkv(_) => projection::qkv().output_names(),
        LayerProof::QkvDecode(_) => array!['k', 'q', 'v'].span(),
        LayerProof::Mha(_) => array!['o', 's_m'].span(),
        LayerProof::Posenc(_) => array!['o'].span(),
        LayerProof::Matmul(_) => projection::matmul().output_names(),
        LayerProof::Attn(_) => array!['o'].span(),
        LayerProof::Requant(_) => array!['y'].span(),
        LayerProof::Add(_) => array!['y'].span(),
        LayerProof::Pool(_) => array!['y'].span(),
        LayerProof::Embed(_) => array!['y'].span(),
    }
}

/// Whether the kind's statements carry witness commitments (Python: a kind that commits
/// advice, `LayerSpec.advise`); the reader refuses them on any other (`calldata.offchain`).
pub fn has_witness(layer: @LayerProof) -> bool {
    match layer {
        LayerProof::Attn(_) | LayerProof::Requant(_) => true,
        _ => false,
    }
}

/// The walk class that verifies a kind (docs/cairo-verifier.md, "Five classes"): the contract
/// reads a walk proof's kind (its statement's first felt) to choose it.
#[derive(Copy, Drop, PartialEq, Debug)]
pub enum WalkClass {
    /// `CairnWalkVerifier`: the sum-check kinds of the matmul family.
    Dense,
    /// `CairnAttentionVerifier`: mha, and the kinds whose proofs the lookup class verifies.
    Attention,
    /// `CairnEncoderVerifier`: the encoder's other kinds (residual add, pooling, embeddings).
    Encoder,
}

pub fn walk_class(kind: felt252) -> WalkClass {
    if kind == 'mha' || kind == 'attn' || kind == 'requant' {
        WalkClass::Attention
    } else if kind == 'add' || kind == 'pool' || kind == 'embed' {
        WalkClass::Encoder
    } else {
        WalkClass::Dense
    }
}

/// The classes a kind's verifier calls by library_call (docs/cairo-verifier.md, "Five
/// classes"): the main contract passes them to the walk class it calls.
#[derive(Copy, Drop, Serde)]
pub struct Classes {
    pub lookup: ClassHash,
}

/// The kinds one class verifies: each kind's statement check (`statement.shape` /
/// `statement.range` as its Python `check`) and verifier. A kind of the other class is
/// `statement.kind` (the contract never sends one).
pub trait LayerSet {
    fn check_layer(layer: @LayerProof, st: @PublicStatement, classes: Classes);
    /// The kind's fixed tables (Python `LayerSpec.tables`): name and pinned commitment, in
    /// name order; the witness opening opens them after the witness stacks.
    fn tables(layer: @LayerProof, st: @PublicStatement) -> Span<(felt252, TensorCommitment)>;
    fn verify_layer(
        layer: @LayerProof,
        st: @PublicStatement,
        outputs: OutputClaims,
        ref channel: Poseidon252Channel,
        classes: Classes,
    ) -> LayerClaims;
}

/// The dense class's kinds: the projections, qkv-decode and posenc.
pub impl DenseLayers of LayerSet {
    fn check_layer(layer: @LayerProof, st: @PublicStatement, classes: Classes) {
        match layer {
            LayerProof::Linear(_) => projection::linear().check(st),
            LayerProof::Qkv(_) => projection::qkv().check(st),
            LayerProof::QkvDecode(_) => kvcache::check(st),
            LayerProof::Posenc(_) => posenc::check(st),
            LayerProof::Matmul(_) => projection::matmul().check(st),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }

    fn tables(layer: @LayerProof, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
        array![].span()
    }

    fn verify_layer(
        layer: @LayerProof,
        st: @PublicStatement,
        outputs: OutputClaims,
        ref channel: Poseidon252Channel,
        classes: Classes,
    ) -> LayerClaims {
        match layer {
            LayerProof::Linear(p) => projection::linear().verify_layer(st, p, outputs, ref channel),
            LayerProof::Qkv(p) => projection::qkv().verify_layer(st, p, outputs, ref channel),
            LayerProof::QkvDecode(p) => kvcache::verify(st, p, outputs, ref channel),
            LayerProof::Posenc(p) => posenc::verify(st, p, outputs, ref channel),
            LayerProof::Matmul(p) => projection::matmul()
                .verify_layer(st, p, outputs, ref channel),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}

/// The attention class's kinds: mha, and attn and requant, which call the lookup class.
pub impl AttentionLayers of LayerSet {
    fn check_layer(layer: @LayerProof, st: @PublicStatement, classes: Classes) {
        match layer {
            LayerProof::Mha(_) => mha::model::check(st),
            LayerProof::Attn(_) => attn::check(st, LookupClass { class_hash: classes.lookup }),
            LayerProof::Requant(_) => requant::model::check(
                st, LookupClass { class_hash: classes.lookup },
            ),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }

    fn tables(layer: @LayerProof, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
        match layer {
            LayerProof::Attn(_) => attn::tables(st),
            _ => array![].span(),
        }
    }

    fn verify_layer(
        layer: @LayerProof,
        st: @PublicStatement,
        outputs: OutputClaims,
        ref channel: Poseidon252Channel,
        classes: Classes,
    ) -> LayerClaims {
        match layer {
            LayerProof::Mha(p) => mha::verifier::verify(st, p, outputs, ref channel),
            LayerProof::Attn(p) => attn::verify(
                st, p, outputs, ref channel, LookupClass { class_hash: classes.lookup },
            ),
            LayerProof::Requant(p) => requant::verifier::verify(
                st, p, outputs, ref channel, LookupClass { class_hash: classes.lookup },
            ),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}

/// The encoder class's kinds: add, pool and embed.
pub impl EncoderLayers of LayerSet {
    fn check_layer(layer: @LayerProof, st: @PublicStatement, classes: Classes) {
        match layer {
            LayerProof::Add(_) => add::check(st),
            LayerProof::Pool(_) => pool::check(st),
            LayerProof::Embed(_) => embed::check(st),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }

    fn tables(layer: @LayerProof, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
        array![].span()
    }

    fn verify_layer(
        layer: @LayerProof,
        st: @PublicStatement,
        outputs: OutputClaims,
        ref channel: Poseidon252Channel,
        classes: Classes,
    ) -> LayerClaims {
        match layer {
            LayerProof::Add(p) => add::verify(st, p, outputs, ref channel),
            LayerProof::Pool(p) => pool::verify(st, p, outputs, ref channel),
            LayerProof::Embed(p) => embed::verify(st, p, outputs, ref channel),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}
