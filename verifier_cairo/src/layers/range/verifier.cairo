//! Range verifier (mirror of prover/layers/range/verifier.py, every check named as in
//! docs/layers/range.md): on a Blake2s fork of the walk's channel, α_t and β, one LogUp-GKR,
//! the balance per table, the summed weights' |w| at the leaves' point, the leaves' claims;
//! then the join and the claims on the weights.

use crate::channels::base::Channel;
use crate::channels::fork::fork;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::lookups::contract::{ForkOutcome, ForkOutcomeTrait};
use crate::lookups::verifier::{check_balance, verify_logup};
use crate::pcs::proof::Claim;
use crate::pcs::stack::check_stacks;
use crate::walk::layer::LayerClaims;
use crate::walk::calldata::deserialize_exactly;
use crate::walk::proof::RangeProof;
use crate::walk::statement::{OutputClaims, PublicStatement, output_claim};
use crate::walk::tensor::TensorCommitment;
use super::relations::{
    Declared, STACKS, balanced, columns, draw, instance_vars, leaf_claims,
    parse_dims, sums_name, summed, tables, witness_layout,
};

/// The fork's domain tag (Python `relations.TAG`) and its length in bytes.
pub const TAG: felt252 = 'cairn/range/v1';
const TAG_LEN: u32 = 14;

/// `range.commitment` unless the witness is exactly the layout's stacks, one hash (the layout
/// fits: the soundness rule has run).
pub fn check_commitments(
    weights: Span<Declared>, names: Span<felt252>, witness: Span<TensorCommitment>,
) -> Span<TensorCommitment> {
    check_stacks(STACKS, @witness_layout(weights).unwrap(), names, witness)
}

/// The fork from the parent's digest; `sums`: the walk's claims on the column sums, in name
/// order. Panics with the failed check.
pub fn verify_fork(
    dims: Span<u32>, proof: @RangeProof, sums: Span<Claim>, parent: felt252,
) -> ForkOutcome {
    let weights = parse_dims(dims);
    let cols = columns(weights);
    let tabs = tables(cols);
    let mut channel = fork(parent, TAG, TAG_LEN);
    let ch = draw(ref channel, tabs.len());
    let leaves = verify_logup(instance_vars(cols, tabs), proof.logup, ref channel).span();
    check_balance(proof.logup, balanced(cols, tabs));
    let magnitudes = proof.magnitudes.span();
    assert(magnitudes.len() == summed(weights).len(), 'range.value_count');
    channel.mix_felts(magnitudes);
    let (on_weights, witness) = leaf_claims(weights, @ch, leaves, magnitudes, sums);
    ForkOutcome {
        digest: channel.digest,
        claims: LayerClaims { inputs: array![].span(), weights: on_weights, witness },
    }
}

/// `outputs` holds the claims on the column sums; the claims left are on the weights and the
/// witness stacks. `proof`: its Serde felts (a nested part, docs/calldata.md).
pub fn verify(
    st: @PublicStatement, proof: Span<felt252>, outputs: OutputClaims, ref channel: Poseidon252Channel,
) -> LayerClaims {
    let weights = parse_dims(*st.dims);
    let mut sums = array![];
    let mut i = 0;
    for d in weights {
        if *d.summed {
            sums.append(output_claim(outputs, sums_name(i)));
        }
        i += 1;
    }
    let proof: RangeProof = deserialize_exactly(proof);
    let outcome = verify_fork(*st.dims, @proof, sums.span(), channel.digest());
    outcome.join(ref channel)
}
