//! Reader of a walk proof's calldata (mirror of serializer/walk_calldata.py and the checks of
//! serializer/serde.py's decoder, in its order): the header, Serde deserialization of the
//! generated `WalkProof` (a bad QM31 panics as it is read, anything else that does not
//! deserialize is `calldata.serde`), then the tensors' words, the maps' name order, extra
//! felts, and the statement parts not read on chain.

use crate::calldata::take_exact;
use super::proof::{Named, WalkProof};
use super::statement::{PublicStatement, read_statement};

/// The walk layout's version (kinds 1–3 keep version 2; docs/calldata.md).
pub const WALK_VERSION: felt252 = 3;
pub const KIND_WALK: felt252 = 4;
const TWO_248: u256 = 0x100000000000000000000000000000000000000000000000000000000000000;

/// The proof, its statement read, and the statement's felts (what `io_hash` hashes).
pub fn read_walk(calldata: Span<felt252>) -> (WalkProof, PublicStatement, Span<felt252>) {
    let mut data = calldata;
    take_exact(ref data, WALK_VERSION, 'calldata.version');
    take_exact(ref data, KIND_WALK, 'calldata.kind');
    // `WalkProof`'s fields in their Serde order, the statement first to know its felts.
    let statement = deserialize(ref data);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let proof = WalkProof {
        statement,
        layer: deserialize(ref data),
        inputs: deserialize(ref data),
        weights: deserialize(ref data),
        opening: deserialize(ref data),
    };
    let st = read_statement(@proof.statement);
    let s = @proof.statement;
    check_names(names_of(s.inputs));
    check_names(names_of(s.outputs));
    check_names(names_of(s.weights));
    check_names(names_of(s.committed));
    check_names(names_of(s.witness));
    check_names(s.unbounded.span());
    check_names(names_of(@proof.inputs));
    check_names(names_of(@proof.weights));
    assert(s.witness.is_empty() && s.unbounded.is_empty(), 'calldata.offchain');
    // Committed weights: their opening's group parts follow (on their way).
    assert(s.committed.is_empty(), 'calldata.offchain');
    assert(data.is_empty(), 'calldata.extra');
    (proof, st, io)
}

fn deserialize<T, +Serde<T>, +Drop<T>>(ref data: Span<felt252>) -> T {
    match Serde::deserialize(ref data) {
        Some(value) => value,
        None => core::panic_with_felt252('calldata.serde'),
    }
}

pub fn names_of<T, +Drop<T>>(entries: @Array<Named<T>>) -> Span<felt252> {
    let mut names = array![];
    for entry in entries.span() {
        names.append(*entry.name);
    }
    names.span()
}

/// `calldata.names` unless the names strictly increase as strings (the transcript's order).
fn check_names(names: Span<felt252>) {
    let mut previous: Option<u256> = None;
    for name in names {
        let key = order_key(*name);
        if let Some(p) = previous {
            assert(p < key, 'calldata.names');
        }
        previous = Some(key);
    }
}

/// A short string's bytes left-aligned in 31 bytes, so names compare as strings.
fn order_key(name: felt252) -> u256 {
    let value: u256 = name.into();
    if value >= TWO_248 {
        return value;
    }
    let mut key = value;
    let top: u256 = TWO_248 / 256;
    while key < top && key != 0 {
        key *= 256;
    }
    key
}
