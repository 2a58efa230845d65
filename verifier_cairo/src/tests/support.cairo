//! Shorthands for the tests and the generated vectors.

use core::poseidon::poseidon_hash_span;
use crate::calldata::read_matmul;
use crate::fields::cm31::{CM31, CM31Trait};
use crate::fields::m31::{M31, M31Trait};
use crate::fields::qm31::{QM31, QM31Trait};
use crate::blake2s::Blake2sHash;
use crate::matmul::verify_matmul;
use crate::merkle::hashers::MerkleHasher;
use crate::merkle::verifier::verify_opening;
use super::vectors::MerkleCase;

pub fn m31(x: u32) -> M31 {
    M31Trait::new(x)
}

pub fn cm31(a: u32, b: u32) -> CM31 {
    CM31Trait::new(a, b)
}

pub fn qm31(a: u32, b: u32, c: u32, d: u32) -> QM31 {
    QM31Trait::new(a, b, c, d)
}

/// `base[..start] ++ insert ++ base[end..]`: how a tampered proof is derived from an honest one.
pub fn splice(
    base: Array<felt252>, start: u32, end: u32, insert: Array<felt252>,
) -> Array<felt252> {
    let base = base.span();
    let mut out = array![];
    out.append_span(base.slice(0, start));
    out.append_span(insert.span());
    out.append_span(base.slice(end, base.len() - end));
    out
}

/// What the contract runs on its calldata, without the storage and the event; returns the
/// proof's `io_hash`.
pub fn verify_calldata(calldata: Array<felt252>) -> felt252 {
    let proof = read_matmul(calldata.span());
    verify_matmul(proof);
    poseidon_hash_span(proof.io)
}

pub fn verify_poseidon(case: MerkleCase) -> Span<Span<u32>> {
    verify_merkle::<felt252>(case)
}

pub fn verify_blake2s(case: MerkleCase) -> Span<Span<u32>> {
    verify_merkle::<Blake2sHash>(case)
}

/// `verify_opening` of a generated case; its root is read as the siblings are.
fn verify_merkle<D, impl H: MerkleHasher<D>, +Copy<D>, +Drop<D>, +PartialEq<D>>(
    case: MerkleCase,
) -> Span<Span<u32>> {
    let root = H::read_digest(case.root).unwrap();
    verify_opening(root, case.depth, case.width, case.leaf_indices, case.leaves, case.siblings)
}
