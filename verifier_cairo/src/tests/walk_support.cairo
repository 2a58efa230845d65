//! The walk classes' path of the contract's `verify` without the contracts: read, verify the
//! walk, then its openings from every group part; returns the io hash.

use core::poseidon::poseidon_hash_span;
use crate::layers::{
    AttentionLayers, DenseLayers, EncoderLayers, RangeLayers, WalkClass, walk_class,
};
use crate::walk::calldata::{read_walk, statement_kind};
use crate::walk::verifier::{verify_openings, verify_walk};
use super::support::{classes, front_class};

pub fn verify_walk_calldata(calldata: Array<felt252>) -> felt252 {
    let proof = calldata.span();
    let walk = read_walk(proof);
    let openings = match walk_class(statement_kind(proof)) {
        WalkClass::Dense => verify_walk::<DenseLayers>(@walk, classes()),
        WalkClass::Attention => verify_walk::<AttentionLayers>(@walk, classes()),
        WalkClass::Encoder => verify_walk::<EncoderLayers>(@walk, classes()),
        WalkClass::Range => verify_walk::<RangeLayers>(@walk, classes()),
    };
    let data = proof.slice(walk.groups_at, proof.len() - walk.groups_at);
    let _phase = verify_openings(openings, data, true, front_class());
    poseidon_hash_span(walk.io)
}
