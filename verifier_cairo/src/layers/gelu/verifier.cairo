//! Gelu verifier (mirror of prover/layers/gelu/verifier.py, every check named as in
//! docs/layers/gelu.md): on a Blake2s fork of the walk's channel, the LogUp-GKR of (x, y) into
//! the table, the column values against both leaves, then the join and the claim on x. The
//! fork runs in the lookup class from the parent's digest; the join in the encoder class.

use crate::channels::base::Channel;
use crate::channels::fork::fork;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::fields::qm31::QM31Trait;
use crate::lookups::contract::{ForkOutcome, ForkOutcomeTrait, LookupClass, LookupClassTrait};
use crate::lookups::verifier::{check_balance, verify_logup};
use crate::pcs::proof::{Claim, ClaimTrait};
use crate::pcs::stack::check_stacks;
use crate::walk::layer::{LayerClaims, single};
use crate::walk::proof::{GeluColumns, LogUpProof};
use crate::walk::statement::{OutputClaims, PublicStatement, output_claim};
use crate::walk::tensor::TensorCommitment;
use super::params::GeluParams;
use super::relations::{
    LookupTrait, STACKS, TABLE, WITNESS, instance_vars, opening_claims, witness_layout,
};

/// The fork's domain tag (Python `relations.TAG`) and its length in bytes.
pub const TAG: felt252 = 'cairn/gelu/v1';
const TAG_LEN: u32 = 13;

/// `gelu.commitment` unless the witness is exactly the layout's stacks, one hash (the layout
/// fits: the statement check has run the parameter rules).
pub fn check_commitments(
    n: u32, params: @GeluParams, names: Span<felt252>, witness: Span<TensorCommitment>,
) -> Span<TensorCommitment> {
    let layout = witness_layout(n, params).unwrap();
    check_stacks(STACKS, @layout, names, witness)
}

/// The fork from the parent's digest, for 2^n entries; panics with the failed check.
pub fn verify_fork(
    n: u32,
    params: @GeluParams,
    logup: @LogUpProof,
    cols: @GeluColumns,
    y_claim: Claim,
    parent: felt252,
) -> ForkOutcome {
    let mut channel = fork(parent, TAG, TAG_LEN);
    channel.mix_felts(y_claim.felts());
    let rel = LookupTrait::draw(ref channel);
    let leaves = verify_logup(instance_vars(n, params), logup, ref channel).span();
    check_balance(logup, array![(array![WITNESS].span(), array![TABLE].span())].span());
    let (witness, table) = (*leaves[WITNESS], *leaves[TABLE]);
    assert(
        witness.numerator == QM31Trait::one() && table.numerator == *cols.m, 'logup.numerator',
    );
    assert(witness.denominator == rel.witness_key_at(cols), 'gelu.columns');
    assert(table.denominator == rel.table_key_at(params, table.point, *cols.t), 'gelu.columns');
    channel.mix_felts(array![*cols.x, *cols.y, *cols.m, *cols.t].span());
    let points = array![witness.point, table.point].span();
    let inputs = array![single('x', Claim { point: witness.point, value: *cols.x })].span();
    let witness = opening_claims(n, params, points, cols, y_claim);
    ForkOutcome {
        digest: channel.digest, claims: LayerClaims { inputs, weights: array![].span(), witness },
    }
}

/// `outputs` holds the claim on y; the claims left are on x and on the witness stacks and the
/// pinned table. The proof (its Serde felts, which the walk classes carry unread) is read and
/// its fork run in the lookup class.
pub fn verify(
    st: @PublicStatement,
    proof: Span<felt252>,
    outputs: OutputClaims,
    ref channel: Poseidon252Channel,
    lookup: LookupClass,
) -> LayerClaims {
    let y_claim = output_claim(outputs, 'y');
    let outcome = lookup.gelu_verify(*st.dims, proof, y_claim, channel.digest());
    outcome.join(ref channel)
}
