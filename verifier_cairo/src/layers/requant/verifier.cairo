//! Requant verifier (mirror of prover/layers/requant/verifier.py, every check named as in
//! docs/layers/requant.md): on a Blake2s fork of the walk's channel, the LogUp-GKR of RANGE
//! and CLAMP, the column values against every leaf, then the join and the claim on x. The fork
//! runs in the lookup class (`lookups::contract`) from the parent's digest; the join in the
//! attention class, from what the fork returns (`ForkOutcome`).

use crate::channels::base::Channel;
use crate::channels::fork::fork;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::fields::qm31::{QM31, QM31Trait};
use crate::lookups::contract::{ForkOutcome, ForkOutcomeTrait, LookupClass, LookupClassTrait};
use crate::lookups::verifier::{LeafClaim, check_balance, verify_logup};
use crate::pcs::proof::{Claim, ClaimTrait};
use crate::pcs::stack::check_stacks;
use crate::walk::layer::{LayerClaims, single};
use crate::walk::proof::{LogUpProof, RequantColumns, RequantProof};
use crate::walk::statement::{OutputClaims, PublicStatement, output_claim};
use crate::walk::tensor::TensorCommitment;
use super::params::RequantParams;
use super::relations::{
    Relations, RelationsTrait, STACKS, input_value, instance_vars, opening_claims, witness_layout,
};

/// The fork's domain tag (Python `relations.TAG`) and its length in bytes.
pub const TAG: felt252 = 'cairn/requant/v1';
const TAG_LEN: u32 = 16;

/// `requant.commitment` unless the witness is exactly the layout's stacks, one hash (the layout
/// fits: the statement check has run the parameter rules).
pub fn check_commitments(
    n: u32, params: @RequantParams, names: Span<felt252>, witness: Span<TensorCommitment>,
) -> Span<TensorCommitment> {
    let layout = witness_layout(n, params).unwrap();
    check_stacks(STACKS, @layout, names, witness)
}

/// The fork from the parent's digest, for 2^n entries; panics with the failed check.
pub fn verify_fork(
    n: u32,
    params: @RequantParams,
    logup: @LogUpProof,
    cols: @RequantColumns,
    y_claim: Claim,
    parent: felt252,
) -> ForkOutcome {
    let mut channel = fork(parent, TAG, TAG_LEN);
    channel.mix_felts(y_claim.felts());
    let rel = RelationsTrait::draw(ref channel);
    let leaves = verify_logup(instance_vars(n, params), logup, ref channel);
    check_balance(
        logup, array![(array![0].span(), array![2].span()), (array![1].span(), array![3].span())]
            .span(),
    );
    let points = verify_columns(@rel, params, leaves.span(), cols);
    channel.mix_felts(column_values(cols));
    let witness = opening_claims(n, params, points, cols, y_claim);
    let x = Claim { point: *points[1], value: input_value(params, cols) };
    let inputs = array![single('x', x)].span();
    ForkOutcome {
        digest: channel.digest, claims: LayerClaims { inputs, weights: array![].span(), witness },
    }
}

/// `logup.numerator` and `requant.columns`: the four leaves (instances in `Relations`' order)
/// against the sent columns and the tables' closed forms; returns the leaf points.
pub fn verify_columns(
    rel: @Relations, params: @RequantParams, leaves: Span<LeafClaim>, cols: @RequantColumns,
) -> Span<Span<QM31>> {
    let one = QM31Trait::one();
    let numerators = array![one, one, *cols.m_range, *cols.m_clamp];
    let mut points = array![];
    let mut i = 0;
    for leaf in leaves {
        assert(*leaf.numerator == *numerators[i], 'logup.numerator');
        points.append(*leaf.point);
        i += 1;
    }
    let points = points.span();
    let (range, clamp) = rel.witness_keys_at(params, *points[0], cols);
    let (range_table, clamp_table) = rel.table_keys_at(params, *points[2], *points[3]);
    let keys = array![range, clamp, range_table, clamp_table];
    let mut i = 0;
    for leaf in leaves {
        assert(*leaf.denominator == *keys[i], 'requant.columns');
        i += 1;
    }
    points
}

/// The proof's column values in Python's `RequantColumns.values()` order.
pub fn column_values(cols: @RequantColumns) -> Span<QM31> {
    array![*cols.r0, *cols.r1, *cols.yq, *cols.y, *cols.m_range, *cols.m_clamp].span()
}

/// `outputs` holds the claim on y; the claims left are on x and on the witness stacks. The
/// fork runs in the lookup class; the parent then absorbs its digest and the claim on x.
pub fn verify(
    st: @PublicStatement,
    proof: @RequantProof,
    outputs: OutputClaims,
    ref channel: Poseidon252Channel,
    lookup: LookupClass,
) -> LayerClaims {
    let y_claim = output_claim(outputs, 'y');
    let outcome = lookup
        .requant_verify(*st.dims, *proof.logup, proof.columns, y_claim, channel.digest());
    outcome.join(ref channel)
}
