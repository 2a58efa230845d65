//! The walk classes' path of the contract's `verify` without the contracts: read, verify the
//! walk, then the committed weights' opening from every group part; returns the io hash.

use core::poseidon::poseidon_hash_span;
use crate::pcs::calldata::read_groups;
use crate::pcs::params::params_for;
use crate::pcs::queries::BatchLayoutTrait;
use crate::pcs::verifier::verify_checked_batch;
use crate::layers::{AttentionLayers, DenseLayers, is_attention};
use crate::walk::calldata::{read_walk, statement_kind};
use crate::walk::verifier::verify_walk;

pub fn verify_walk_calldata(calldata: Array<felt252>) -> felt252 {
    let proof = calldata.span();
    let walk = read_walk(proof);
    let opening = if is_attention(statement_kind(proof)) {
        verify_walk::<AttentionLayers>(@walk)
    } else {
        verify_walk::<DenseLayers>(@walk)
    };
    if let Some(o) = opening {
        let params = params_for(o.hash).unwrap();
        let mut vars = array![];
        for poly in o.statement {
            vars.append(*poly.n_vars);
        }
        let layout = BatchLayoutTrait::new(vars.span(), params.log_arity);
        let mut data = proof.slice(walk.groups_at, proof.len() - walk.groups_at);
        let groups = read_groups(ref data, @params, @layout, 0, 0, true);
        let mut channel = o.channel;
        let _phase = verify_checked_batch(@params, o.statement, o.front, groups, ref channel);
    }
    poseidon_hash_span(walk.io)
}
