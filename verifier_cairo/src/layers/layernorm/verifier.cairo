//! LayerNorm verifier (mirror of prover/layers/layernorm/verifier.py, every check named as in
//! docs/layers/layernorm.md): on a Blake2s fork of the walk's channel, one LogUp-GKR over both
//! requantizations and the limbs, the column values against every leaf, the scale and
//! normalise products, the row factors from the public statistics, the statistics step; then
//! the join and the claims on h, β and γ. The fork runs in the lookup class from the parent's
//! digest (it reads the public statistics s1, s2); the join in the encoder class.

use crate::channels::base::Channel;
use crate::channels::fork::fork;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::layers::mha::heads::verify_head_product;
use crate::layers::requant::relations::input_value;
use crate::layers::requant::structured::signed_qm31;
use crate::layers::requant::verifier::{column_values, verify_columns};
use crate::lookups::contract::{ForkOutcome, ForkOutcomeTrait, LookupClass, LookupClassTrait};
use crate::lookups::verifier::{LeafClaim, check_balance, verify_logup};
use crate::mle::{eq_table, log2_padded};
use crate::pcs::proof::{Claim, ClaimTrait};
use crate::pcs::stack::check_stacks;
use crate::walk::layer::{ClaimsOn, LayerClaims, single};
use crate::walk::proof::{LayerNormProof, LimbColumns};
use crate::walk::statement::{OutputClaims, PublicStatement, output_claim, tensor};
use crate::walk::tensor::TensorCommitment;
use super::model::row_statistics;
use super::params::{LayerNormParams, LayerNormParamsTrait};
use super::relations::{
    LIMB, NORM, Relations, RelationsTrait, SCALE, STACKS, StepPoints, centred_to_input,
    instance_vars, opening_claims, recompose, witness_layout,
};
use super::statistics::verify_statistics;

/// The fork's domain tag (Python `relations.TAG`) and its length in bytes.
pub const TAG: felt252 = 'cairn/layernorm/v1';
const TAG_LEN: u32 = 18;

/// `layernorm.commitment` unless the witness is exactly the layout's stacks, one hash.
pub fn check_commitments(
    n: u32, params: @LayerNormParams, names: Span<felt252>, witness: Span<TensorCommitment>,
) -> Span<TensorCommitment> {
    check_stacks(STACKS, @witness_layout(n, params).unwrap(), names, witness)
}

/// `logup.numerator` and `layernorm.columns` for the LIMB witness and table leaves.
fn verify_limbs(
    rel: @Relations, params: @LayerNormParams, leaves: Span<LeafClaim>, cols: @LimbColumns,
) -> Span<Span<QM31>> {
    let (witness, table) = (*leaves[0], *leaves[1]);
    assert(witness.numerator == QM31Trait::one(), 'logup.numerator');
    assert(table.numerator == *cols.m, 'logup.numerator');
    let (w_key, t_key) = rel.limb_keys_at(params, witness.point, table.point, cols);
    assert(witness.denominator == w_key, 'layernorm.columns');
    assert(table.denominator == t_key, 'layernorm.columns');
    array![witness.point, table.point].span()
}

/// Per row, μ and r from the public statistics (`model::row_statistics`) as field elements: μ
/// signed, r mod p.
fn row_factors(
    s1: Span<felt252>, s2: Span<felt252>, params: @LayerNormParams,
) -> (Array<QM31>, Array<QM31>) {
    let (mut means, mut factors) = (array![], array![]);
    for row in row_statistics(s1, s2, params) {
        means.append(signed_qm31((*row.mean).try_into().unwrap()));
        factors.append(QM31Trait::one().scale(M31Trait::reduce_u128((*row.factor).into())));
    }
    (means, factors)
}

/// The MLE of `values` (zero-padded to 2^len(point) rows) at `point`.
fn row_mle(values: Span<QM31>, point: Span<QM31>) -> QM31 {
    let table = eq_table(point);
    let mut total = QM31Trait::zero();
    let mut i = 0;
    for v in values {
        total = total + *table[i] * *v;
        i += 1;
    }
    total
}

/// The fork from the parent's digest; panics with the failed check. `s1`, `s2`: the public
/// statistics' values; `outputs`: the claims on s1, s2, y (name order).
pub fn verify_fork(
    dims: Span<u32>,
    s1: Span<felt252>,
    s2: Span<felt252>,
    proof: @LayerNormProof,
    outputs: Span<Claim>,
    parent: felt252,
) -> ForkOutcome {
    let params = LayerNormParamsTrait::from_dims(dims);
    let (s, d) = (*dims[0], *dims[1]);
    let (rows, n) = (log2_padded(s), log2_padded(s) + log2_padded(d));
    let mut channel = fork(parent, TAG, TAG_LEN);
    for claim in outputs {
        channel.mix_felts(claim.felts());
    }
    let (s1_claim, s2_claim, y_claim) = (*outputs[0], *outputs[1], *outputs[2]);
    let beta = *proof.beta;
    channel.mix_felts(array![beta].span());

    let rel = RelationsTrait::draw(ref channel);
    let leaves = verify_logup(instance_vars(n, @params), proof.logup, ref channel).span();
    let pairs = array![(0, 2), (1, 3), (4, 6), (5, 7), (8, 9)];
    let mut balanced = array![];
    for (w, t) in pairs {
        balanced.append((array![w].span(), array![t].span()));
    }
    check_balance(proof.logup, balanced.span());
    let (norm_p, scale_p) = (params.norm(), params.scale());
    let mut points = array![];
    points.append_span(verify_columns(@rel.norm, @norm_p, leaves.slice(NORM, 4), proof.norm));
    points.append_span(verify_columns(@rel.scale, @scale_p, leaves.slice(SCALE, 4), proof.scale));
    points.append_span(verify_limbs(@rel, @params, leaves.slice(LIMB, 2), proof.limbs));
    let points = points.span();
    let mut sent = array![];
    sent.append_span(column_values(proof.norm));
    sent.append_span(column_values(proof.scale));
    sent.append_span(array![*proof.limbs.lo, *proof.limbs.hi, *proof.limbs.m].span());
    channel.mix_felts(sent.span());

    let rho = *points[NORM + 1];
    let (rho_rows, rho_cols) = (rho.slice(0, rows), rho.slice(rows, rho.len() - rows));
    let scale = input_value(@scale_p, proof.scale);
    let kappa_cols = verify_head_product(
        proof.scale_step, scale, rho_cols, 0, ref channel, 'layernorm.scale',
    );
    let (means, factors) = row_factors(s1, s2, @params);
    let norm = input_value(@norm_p, proof.norm);
    let kappa_rows = verify_head_product(
        proof.norm_step, norm, rho_rows, 0, ref channel, 'layernorm.normalise',
    );
    assert(*proof.norm_step.left == row_mle(factors.span(), kappa_rows), 'layernorm.factor');
    let stats = proof.statistics;
    let pi = verify_statistics(
        stats, s1_claim, s2_claim, n, params.limb_bits, params.d, ref channel,
    );

    let at = StepPoints { rho_rows, rho_cols, kappa_cols, kappa_rows, pi, output: y_claim.point };
    let ends = (*proof.scale_step.right, beta, *stats.lo, *stats.hi);
    let witness = opening_claims(
        n, @params, points, @at, (proof.norm, proof.scale, proof.limbs), ends, y_claim, s,
    );
    let mut h_point = array![];
    h_point.append_span(kappa_rows);
    h_point.append_span(rho_cols);
    let mean = row_mle(means.span(), kappa_rows);
    let h = centred_to_input(*proof.norm_step.right, mean, rho_cols, d);
    let h_claims = array![
        Claim { point: h_point.span(), value: h },
        Claim { point: pi, value: recompose(params.limb_bits, *stats.lo, *stats.hi) },
    ];
    let output_cols = y_claim.point.slice(rows, y_claim.point.len() - rows);
    let weights = array![
        single('beta', Claim { point: output_cols, value: beta }),
        single('gamma', Claim { point: kappa_cols, value: *proof.scale_step.left }),
    ];
    let inputs = array![ClaimsOn { name: 'h', claims: h_claims.span() }];
    ForkOutcome {
        digest: channel.digest,
        claims: LayerClaims { inputs: inputs.span(), weights: weights.span(), witness },
    }
}

/// `outputs` holds the claims on s1, s2 and y; the claims left are on h (two), β and γ and on
/// the witness stacks. The proof (its Serde felts, which the walk classes carry unread) is
/// read and its fork run in the lookup class; the parent then absorbs its digest and the
/// claims handed to the walk.
pub fn verify(
    st: @PublicStatement,
    proof: Span<felt252>,
    outputs: OutputClaims,
    ref channel: Poseidon252Channel,
    lookup: LookupClass,
) -> LayerClaims {
    let claims = array![
        output_claim(outputs, 's1'), output_claim(outputs, 's2'), output_claim(outputs, 'y'),
    ];
    let (s1, s2) = (tensor(*st.outputs, 's1'), tensor(*st.outputs, 's2'));
    let outcome = lookup
        .layernorm_verify(
            *st.dims, s1.values, s2.values, proof, claims.span(), channel.digest(),
        );
    outcome.join(ref channel)
}
