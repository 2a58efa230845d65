//! The walk path of the contract's `verify` without the contract: read, verify, io hash.

use core::poseidon::poseidon_hash_span;
use crate::walk::calldata::read_walk;
use crate::walk::verifier::verify_walk;

pub fn verify_walk_calldata(calldata: Array<felt252>) -> felt252 {
    let walk = read_walk(calldata.span(), true);
    let _complete = verify_walk(@walk);
    poseidon_hash_span(walk.io)
}
