//! The layer kinds a walk proof can carry on chain (mirror of prover/layers/registry.py for
//! `ONCHAIN_KINDS`): each kind's statement check and verifier, one module per kind.

use starknet::ClassHash;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::lookups::contract::LookupClass;
use crate::walk::calldata::deserialize_exactly;
use crate::walk::layer::LayerClaims;
use crate::walk::proof::LayerProof;
use crate::walk::statement::{OutputClaims, PublicStatement};
use crate::walk::tensor::{Bound, TensorCommitment};
use projection::{ProjectionsTrait, projections};

pub mod add;
pub mod attn;
pub mod embed;
pub mod gelu;
pub mod layernorm;
pub mod kvcache;
pub mod mha;
pub mod pool;
pub mod posenc;
pub mod projection;
pub mod range;
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
        LayerProof::Gelu(_) => ('gelu', 'cairn/gelu/v1'),
        LayerProof::Layernorm(_) => ('layernorm', 'cairn/layernorm/v1'),
        LayerProof::Range(_) => ('range', 'cairn/range/v1'),
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
        LayerProof::Gelu(_) => array!['y'].span(),
        LayerProof::Layernorm(_) => array!['s1', 's2', 'y'].span(),
        LayerProof::Range(_) => range::relations::all_sums(),
    }
}

/// The tensors whose values the kind's check reads (Python `LayerSpec.reads`): never committed
/// (`statement.reads`), in a graph never hidden.
pub fn layer_reads(kind: felt252) -> Span<felt252> {
    if kind == 'layernorm' {
        array!['s1', 's2'].span()
    } else if kind == 'range' {
        range::relations::all_sums()
    } else {
        array![].span()
    }
}

/// Whether the kind's statements carry witness commitments (Python: a kind that commits
/// advice, `LayerSpec.advise`); the reader refuses them on any other (`calldata.offchain`).
pub fn has_witness(kind: felt252) -> bool {
    kind == 'attn' || kind == 'requant' || kind == 'gelu' || kind == 'layernorm' || kind == 'range'
}

/// The walk class that verifies a kind (docs/cairo-verifier.md, "Eight classes"): the contract
/// reads a walk proof's kind (its statement's first felt) to choose it.
#[derive(Copy, Drop, PartialEq, Debug)]
pub enum WalkClass {
    /// `CairnWalkVerifier`: the sum-check kinds of the matmul family.
    Dense,
    /// `CairnAttentionVerifier`: mha, and the kinds whose proofs the lookup class verifies.
    Attention,
    /// `CairnEncoderVerifier`: the encoder's other kinds (residual add, pooling, embeddings,
    /// GELU and LayerNorm, whose lookups the lookup class verifies).
    Encoder,
    /// `CairnRangeVerifier`: range, whose walks certify a model's declared weights.
    Range,
}

pub fn walk_class(kind: felt252) -> WalkClass {
    if kind == 'mha' || kind == 'attn' || kind == 'requant' {
        WalkClass::Attention
    } else if kind == 'add'
        || kind == 'pool'
        || kind == 'embed'
        || kind == 'gelu'
        || kind == 'layernorm' {
        WalkClass::Encoder
    } else if kind == 'range' {
        WalkClass::Range
    } else {
        WalkClass::Dense
    }
}

/// The classes a verifier calls by library_call (docs/cairo-verifier.md, "Eight classes"): the
/// main contract passes them to the walk or graph class it calls; attn, requant and gelu call
/// the lookup class, the model walk each node's walk class.
#[derive(Copy, Drop, Serde)]
pub struct Classes {
    pub dense: ClassHash,
    pub attention: ClassHash,
    pub encoder: ClassHash,
    pub range: ClassHash,
    pub lookup: ClassHash,
}

/// A library call whose failure panics with the callee's check name alone, as if the check
/// ran in place (the revert's innermost panic names it too).
pub fn call_class(class_hash: ClassHash, selector: felt252, args: Array<felt252>) -> Span<felt252> {
    match starknet::syscalls::library_call_syscall(class_hash, selector, args.span()) {
        Ok(ret) => ret,
        Err(data) => core::panic_with_felt252(*data[0]),
    }
}

/// The class hash of a kind's walk class.
pub fn class_of(classes: Classes, kind: felt252) -> ClassHash {
    match walk_class(kind) {
        WalkClass::Dense => classes.dense,
        WalkClass::Attention => classes.attention,
        WalkClass::Encoder => classes.encoder,
        WalkClass::Range => classes.range,
    }
}

/// How many claims the kind leaves for the witness opening (Python `LayerSpec.opening_claims`,
/// which the opening's soundness term counts).
pub fn opening_claims(kind: felt252) -> u32 {
    if kind == 'attn' {
        12
    } else if kind == 'requant' {
        7
    } else if kind == 'gelu' {
        4
    } else if kind == 'layernorm' {
        19
    } else if kind == 'range' {
        110
    } else {
        0
    }
}

/// The kinds one class verifies: each kind's statement check (`statement.shape` /
/// `statement.range` as its Python `check`), the bounds its outputs get, and its verifier. A
/// kind of another class is `statement.kind` (the contract never sends one).
pub trait LayerSet {
    /// Returns the layer's error terms as a count over |F| (None: a layer of sum-checks only,
    /// whose term is SUMCHECK_ERROR; docs/model-walk.md, "Soundness").
    fn check_layer(kind: felt252, st: @PublicStatement, classes: Classes) -> Option<u128>;
    /// Per output in name order, the least bound its checked relations give it (None: none;
    /// Python `_output_bound`, prover/graph/views.py), for a statement `check_layer` accepted.
    fn output_bounds(kind: felt252, st: @PublicStatement) -> Span<Option<Bound>>;
    /// The kind's fixed tables (Python `LayerSpec.tables`): name and pinned commitment, in
    /// name order; the witness opening opens them after the witness stacks.
    fn tables(kind: felt252, st: @PublicStatement) -> Span<(felt252, TensorCommitment)>;
    /// The keys of the declarations a verified walk of the kind certifies (range's committed
    /// weights; none for other kinds).
    fn certified(kind: felt252, st: @PublicStatement) -> Span<felt252> {
        array![].span()
    }
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
    fn check_layer(kind: felt252, st: @PublicStatement, classes: Classes) -> Option<u128> {
        if kind == 'qkv-decode' {
            kvcache::check(st);
        } else if kind == 'posenc' {
            posenc::check(st);
        } else {
            projections(kind).check(st);
        }
        None
    }

    /// A projection's outputs are bounded when its weights are declared (a graph's weights
    /// are committed on chain); posenc's relation bounds no output (qkv-decode is never a
    /// graph's node on chain).
    fn output_bounds(kind: felt252, st: @PublicStatement) -> Span<Option<Bound>> {
        if kind == 'posenc' {
            return array![None].span();
        }
        projections(kind).output_bounds(st)
    }

    fn tables(kind: felt252, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
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
            LayerProof::Linear(p) => projection::linear()
                .verify_layer(st, @deserialize_exactly(*p), outputs, ref channel),
            LayerProof::Qkv(p) => projection::qkv()
                .verify_layer(st, @deserialize_exactly(*p), outputs, ref channel),
            LayerProof::QkvDecode(p) => kvcache::verify(
                st, @deserialize_exactly(*p), outputs, ref channel,
            ),
            LayerProof::Posenc(p) => posenc::verify(st, @deserialize_exactly(*p), outputs, ref channel),
            LayerProof::Matmul(p) => projection::matmul()
                .verify_layer(st, @deserialize_exactly(*p), outputs, ref channel),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}

/// The attention class's kinds: mha, and attn and requant, which call the lookup class.
pub impl AttentionLayers of LayerSet {
    fn check_layer(kind: felt252, st: @PublicStatement, classes: Classes) -> Option<u128> {
        let lookup = LookupClass { class_hash: classes.lookup };
        if kind == 'mha' {
            mha::model::check(st);
            None
        } else if kind == 'attn' {
            Some(attn::check(st, lookup))
        } else if kind == 'requant' {
            Some(requant::model::check(st, lookup))
        } else {
            core::panic_with_felt252('statement.kind')
        }
    }

    /// (mha is never a graph's node on chain.)
    fn output_bounds(kind: felt252, st: @PublicStatement) -> Span<Option<Bound>> {
        if kind == 'attn' {
            attn::output_bounds(st)
        } else {
            requant::model::output_bounds(st)
        }
    }

    fn tables(kind: felt252, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
        if kind == 'attn' {
            attn::tables(st)
        } else {
            array![].span()
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
            LayerProof::Mha(p) => mha::verifier::verify(
                st, @deserialize_exactly(*p), outputs, ref channel,
            ),
            LayerProof::Attn(p) => attn::verify(
                st, @deserialize_exactly(*p), outputs, ref channel, LookupClass { class_hash: classes.lookup },
            ),
            LayerProof::Requant(p) => requant::verifier::verify(
                st, @deserialize_exactly(*p), outputs, ref channel, LookupClass { class_hash: classes.lookup },
            ),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}

/// The encoder class's kinds: add, pool, embed, and gelu and layernorm, which call the lookup
/// class.
pub impl EncoderLayers of LayerSet {
    fn check_layer(kind: felt252, st: @PublicStatement, classes: Classes) -> Option<u128> {
        let lookup = LookupClass { class_hash: classes.lookup };
        if kind == 'gelu' {
            return Some(gelu::model::check(st, lookup));
        } else if kind == 'layernorm' {
            return Some(layernorm::model::check(st, lookup));
        }
        if kind == 'add' {
            add::check(st);
        } else if kind == 'pool' {
            pool::check(st);
        } else if kind == 'embed' {
            embed::check(st);
        } else {
            core::panic_with_felt252('statement.kind');
        }
        None
    }

    fn output_bounds(kind: felt252, st: @PublicStatement) -> Span<Option<Bound>> {
        if kind == 'gelu' {
            gelu::model::output_bounds(st)
        } else if kind == 'layernorm' {
            layernorm::model::output_bounds(st)
        } else if kind == 'add' {
            add::output_bounds(st)
        } else if kind == 'pool' {
            pool::output_bounds(st)
        } else {
            embed::output_bounds(st)
        }
    }

    fn tables(kind: felt252, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
        if kind == 'gelu' {
            gelu::model::tables(st)
        } else {
            array![].span()
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
            LayerProof::Gelu(p) => gelu::verifier::verify(
                st, *p, outputs, ref channel, LookupClass { class_hash: classes.lookup },
            ),
            LayerProof::Layernorm(p) => layernorm::verifier::verify(
                st, *p, outputs, ref channel, LookupClass { class_hash: classes.lookup },
            ),
            LayerProof::Add(p) => add::verify(st, @deserialize_exactly(*p), outputs, ref channel),
            LayerProof::Pool(p) => pool::verify(st, @deserialize_exactly(*p), outputs, ref channel),
            LayerProof::Embed(p) => embed::verify(st, @deserialize_exactly(*p), outputs, ref channel),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}

/// The range class's one kind, verified in place (its LogUp-GKR and Blake2s fork included).
pub impl RangeLayers of LayerSet {
    fn check_layer(kind: felt252, st: @PublicStatement, classes: Classes) -> Option<u128> {
        assert(kind == 'range', 'statement.kind');
        Some(range::model::check(st))
    }

    fn output_bounds(kind: felt252, st: @PublicStatement) -> Span<Option<Bound>> {
        range::model::output_bounds(st)
    }

    fn tables(kind: felt252, st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
        array![].span()
    }

    fn certified(kind: felt252, st: @PublicStatement) -> Span<felt252> {
        range::model::certified(st)
    }

    fn verify_layer(
        layer: @LayerProof,
        st: @PublicStatement,
        outputs: OutputClaims,
        ref channel: Poseidon252Channel,
        classes: Classes,
    ) -> LayerClaims {
        match layer {
            LayerProof::Range(p) => range::verifier::verify(st, *p, outputs, ref channel),
            _ => core::panic_with_felt252('statement.kind'),
        }
    }
}
