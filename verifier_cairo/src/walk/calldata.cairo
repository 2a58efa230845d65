//! Reader of a walk proof's calldata (mirror of serializer/walk_calldata.py and the checks of
//! serializer/serde.py's decoder, in its order): the header, Serde deserialization of the
//! generated `WalkProof` (a bad QM31 panics as it is read, anything else that does not
//! deserialize is `calldata.serde`), then the tensors' words, the maps' name order, extra
//! felts, and the statement parts not read on chain.

use crate::calldata::{KIND_WALK, VERSION, take_exact};
use crate::layers::{has_witness, layer_kind};
use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON, STARK_PRIME};
use crate::pcs::params::{PcsParams, params_for};
use super::proof::{Commitment, CommittedTensor, Named, WalkProof};
use super::statement::{PublicStatement, read_binding, read_public};
use super::tensor::{Known, PublicTensor, TensorCommitment, Tensors};

const TWO_248: u256 = 0x100000000000000000000000000000000000000000000000000000000000000;

/// A walk proof's Serde part as read: the proof, its statement with the tensors read (each
/// group public and committed, in name order), the statement's felts (what `io_hash` hashes),
/// the committed tensors' PCS parameters (if any), and where the opening's group parts start.
#[derive(Drop)]
pub struct WalkCalldata {
    pub proof: WalkProof,
    pub statement: PublicStatement,
    pub io: Span<felt252>,
    pub params: Option<PcsParams>,
    pub groups_at: u32,
}

/// A walk proof's kind, before it is read: its statement's first felt, after the header (0
/// when the calldata ends sooner; the reader then refuses it).
pub fn statement_kind(calldata: Span<felt252>) -> felt252 {
    match calldata.get(2) {
        Some(kind) => *kind.unbox(),
        None => 0,
    }
}

/// The Serde part and its checks; the group parts of a committed tensors' opening are left
/// to the PCS reader (`pcs::calldata::read_groups`), after the walk is verified. Without an
/// opening nothing may follow (`calldata.extra`).
pub fn read_walk(calldata: Span<felt252>) -> WalkCalldata {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_WALK, 'calldata.kind');
    // `WalkProof`'s fields in their Serde order, the statement first to know its felts.
    let statement = deserialize(ref data);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let proof = WalkProof {
        statement,
        outputs: deserialize(ref data),
        layer: deserialize(ref data),
        inputs: deserialize(ref data),
        weights: deserialize(ref data),
        opening: deserialize(ref data),
        witness_opening: deserialize(ref data),
    };
    let (inputs, outputs, weights) = read_public(@proof.statement);
    let s = @proof.statement;
    check_names(names_of(s.inputs));
    check_names(names_of(s.outputs));
    check_names(names_of(s.weights));
    check_names(names_of(s.committed));
    check_names(names_of(s.witness));
    if let Some(b) = s.binding {
        check_names(names_of(b.weights));
    }
    check_names(s.unbounded.span());
    check_names(names_of(@proof.outputs));
    check_names(names_of(@proof.inputs));
    check_names(names_of(@proof.weights));
    let committed = read_committed(s.committed.span());
    let (inputs, outputs) = (with_committed(inputs, committed), with_committed(outputs, committed));
    let weights = with_committed(weights, committed);
    assert(s.unbounded.is_empty(), 'calldata.offchain');
    let (variant, _) = layer_kind(@proof.layer);
    assert(s.witness.is_empty() || has_witness(variant), 'calldata.offchain');
    let witness = read_witness(s.witness.span());
    let params = if s.committed.is_empty() {
        None
    } else {
        Some(committed_params(committed))
    };
    if (params.is_none() || proof.opening.is_none()) && proof.witness_opening.is_none() {
        assert(data.is_empty(), 'calldata.extra');
    }
    let groups_at = calldata.len() - data.len();
    let statement = PublicStatement {
        kind: *s.kind, dims: s.dims.span(), binding: read_binding(s), inputs, outputs, weights,
        committed, witness,
    };
    WalkCalldata { proof, statement, io, params, groups_at }
}

/// The committed tensors as tensors with a commitment and no values, in name order.
pub fn read_committed(committed: Span<Named<CommittedTensor>>) -> Tensors {
    let (mut names, mut tensors) = (array![], array![]);
    for entry in committed {
        let c = entry.value.commitment;
        let commitment = TensorCommitment { hash: hash_tag(*c.hash), root: *c.root, n_vars: *c.n_vars };
        names.append(*entry.name);
        tensors.append(
            PublicTensor {
                shape: entry.value.shape.span(),
                words: array![].span(),
                values: array![].span(),
                commitment: Some(commitment),
                known: Known::Nothing,
            },
        );
    }
    Tensors { names: names.span(), tensors: tensors.span() }
}

/// The witness commitments as tensors with a commitment and no shape or values.
pub fn read_witness(witness: Span<Named<Commitment>>) -> Tensors {
    let (mut names, mut tensors) = (array![], array![]);
    for entry in witness {
        let c = entry.value;
        let commitment = TensorCommitment { hash: hash_tag(*c.hash), root: *c.root, n_vars: *c.n_vars };
        names.append(*entry.name);
        tensors.append(
            PublicTensor {
                shape: array![].span(),
                words: array![].span(),
                values: array![].span(),
                commitment: Some(commitment),
                known: Known::Nothing,
            },
        );
    }
    Tensors { names: names.span(), tensors: tensors.span() }
}

/// A group's public tensors and the committed ones merged in name order (`calldata.names` if
/// a name is both).
#[inline(never)]
pub fn with_committed(public: Tensors, committed: Tensors) -> Tensors {
    let mut names = array![];
    let mut tensors = array![];
    let (mut i, mut j) = (0, 0);
    while i < public.names.len() || j < committed.names.len() {
        let take_public = if j == committed.names.len() {
            true
        } else if i == public.names.len() {
            false
        } else {
            let (a, b) = (order_key(*public.names[i]), order_key(*committed.names[j]));
            assert(a != b, 'calldata.names');
            a < b
        };
        if take_public {
            names.append(*public.names[i]);
            tensors.append(*public.tensors[i]);
            i += 1;
        } else {
            names.append(*committed.names[j]);
            tensors.append(*committed.tensors[j]);
            j += 1;
        }
    }
    Tensors { names: names.span(), tensors: tensors.span() }
}

/// A commitment's hash name as its tag (0 for a name no PCS has).
pub fn hash_tag(name: felt252) -> felt252 {
    if name == 'poseidon' {
        HASH_POSEIDON
    } else if name == 'blake2s' {
        HASH_BLAKE2S
    } else {
        0
    }
}

/// The committed tensors' PCS: one known hash (`pcs.hash`), roots that are digests of it
/// (`merkle.digest`), sizes it can open (`pcs.size`).
pub fn committed_params(committed: Tensors) -> PcsParams {
    let mut tag = 0;
    for t in committed.tensors {
        if let Some(c) = t.commitment {
            if tag == 0 {
                tag = *c.hash;
            }
            assert(*c.hash == tag && tag != 0, 'pcs.hash');
        }
    }
    let params = params_for(tag).unwrap();
    for t in committed.tensors {
        if let Some(c) = t.commitment {
            assert(tag != HASH_POSEIDON || *c.root < STARK_PRIME, 'merkle.digest');
        }
    }
    for t in committed.tensors {
        if let Some(c) = t.commitment {
            assert(*c.n_vars <= params.max_n_vars, 'pcs.size');
        }
    }
    params
}

pub fn deserialize<T, +Serde<T>, +Drop<T>>(ref data: Span<felt252>) -> T {
    match Serde::deserialize(ref data) {
        Some(value) => value,
        None => core::panic_with_felt252('calldata.serde'),
    }
}

/// A nested part (docs/calldata.md): `calldata.serde` unless `felts` are exactly one `T`.
pub fn deserialize_exactly<T, +Serde<T>, +Drop<T>>(felts: Span<felt252>) -> T {
    let mut data = felts;
    let value: T = deserialize(ref data);
    assert(data.is_empty(), 'calldata.serde');
    value
}

pub fn names_of<T, +Drop<T>>(entries: @Array<Named<T>>) -> Span<felt252> {
    let mut names = array![];
    for entry in entries.span() {
        names.append(*entry.name);
    }
    names.span()
}

/// `calldata.names` unless the names strictly increase as strings (the transcript's order).
pub fn check_names(names: Span<felt252>) {
    let mut previous: Option<u256> = None;
    for name in names {
        let key = order_key(*name);
        if let Some(p) = previous {
            assert(p < key, 'calldata.names');
        }
        previous = Some(key);
    }
}

/// A short string's bytes left-aligned in 31 bytes, so names compare as strings: its bytes
/// counted on the u128 limbs, then one shift as felt products (a name is below 2^248, so the
/// shifted value is too).
pub fn order_key(name: felt252) -> u256 {
    let value: u256 = name.into();
    if value >= TWO_248 || value == 0 {
        return value;
    }
    let (mut rest, mut bytes) = if value.high != 0 {
        (value.high, 16)
    } else {
        (value.low, 0)
    };
    while rest != 0 {
        rest /= 256;
        bytes += 1;
    }
    let mut key = name;
    for _ in bytes..31_u32 {
        key *= 256;
    }
    key.into()
}
