//! The batched LogUp-GKR verifier against Python: what the generated tests of
//! `lookup_vectors` (tests/cairo_lookup_vectors.py) run, and properties of its honest proofs.

use crate::channels::blake2s::Blake2sChannel;
use crate::lookups::verifier::{LeafClaim, check_balance, check_shape, verify_logup};
use crate::walk::proof::LogUpProof;
use super::lookup_vectors::{
    lookup_n_vars, lookup_proof, lookup_relations, mixed_6_n_vars, mixed_6_proof,
};

/// A proof from its Serde felts, all of them read.
pub fn read_proof(felts: Array<felt252>) -> LogUpProof {
    let mut data = felts.span();
    let proof = Serde::<LogUpProof>::deserialize(ref data).expect('not a LogUpProof');
    assert(data.is_empty(), 'felts after the proof');
    proof
}

/// What the generated tests run, as Python's `outcome`: verify_logup on a fresh Blake2s
/// channel, then check_balance; the leaf claims and the channel's digest.
pub fn verify(
    n_vars: Span<u32>, relations: Span<(Span<u32>, Span<u32>)>, felts: Array<felt252>,
) -> (Array<LeafClaim>, [u32; 8]) {
    let proof = read_proof(felts);
    let mut channel: Blake2sChannel = Default::default();
    let leaves = verify_logup(n_vars, @proof, ref channel);
    check_balance(@proof, relations);
    (leaves, channel.digest)
}

/// Every instance's leaf point is its n_vars-long suffix of one common point.
#[test]
fn leaf_points_are_suffixes_of_one_point() {
    let n_vars = mixed_6_n_vars();
    let mut channel: Blake2sChannel = Default::default();
    let leaves = verify_logup(n_vars, @read_proof(mixed_6_proof()), ref channel);
    let common = *leaves[3].point; // the only instance of n = 6 variables
    assert_eq!(common.len(), 6);
    let mut i = 0;
    for leaf in leaves.span() {
        let k = *n_vars[i];
        assert_eq!(*leaf.point, common.slice(6 - k, k));
        i += 1;
    }
}

/// check_shape returns n = max n_I and touches no channel.
#[test]
fn check_shape_returns_the_layer_count() {
    assert_eq!(check_shape(mixed_6_n_vars(), @read_proof(mixed_6_proof())), 6);
    assert_eq!(check_shape(lookup_n_vars(), @read_proof(lookup_proof())), 3);
}

/// The lookup batch's relations balance on its honest proof.
#[test]
fn lookup_relations_balance() {
    check_balance(@read_proof(lookup_proof()), lookup_relations());
}
