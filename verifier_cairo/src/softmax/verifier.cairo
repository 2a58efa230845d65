//! Softmax verifier (mirror of prover/softmax/verifier.py, every check named as in
//! docs/layers/attn.md): on a Blake2s fork of the walk's channel, the LogUp-GKR of EXP, LIMB
//! and NORM, the column values against every leaf, the recomposition sum-check, then the join.
//! The fork runs in the lookup class (`lookups::contract`) from the parent's digest; the join
//! runs in the attention class, from what the fork returns (`SoftmaxOutcome`).

use crate::channels::base::Channel;
use crate::blake2s::Blake2sHash;
use crate::channels::fork::{fork, join};
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::layers::mha::model::{Dims, DimsTrait};
use crate::lookups::verifier::{check_balance, verify_logup};
use crate::mle::eq_eval;
use crate::pcs::proof::{Claim, ClaimTrait};
use crate::pcs::stack::check_stacks;
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::layer::ClaimsOn;
use crate::walk::proof::{ColumnValues, SoftmaxProof};
use crate::walk::tensor::TensorCommitment;
use super::params::{EXP_BITS, SoftmaxParams, SoftmaxParamsTrait, U_MASK};
use super::relations::{
    KeyTrait, RelationsTrait, STACKS, field_pow2, instance_vars, norm_at, opening_claims,
    table_keys_at, witness_layout,
};
use super::structured::valid_entries_mle;

/// The fork's domain tag (Python `softmax.prover.TAG`) and its length in bytes.
pub const TAG: felt252 = 'cairn/softmax/v1';
const TAG_LEN: u32 = 16;
/// eq(ρ, x)·w(x)·(Z(x_row) − c·QK̂(x)).
const RECOMPOSE_DEGREE: u32 = 3;

/// `softmax.commitment` unless the witness is exactly the layout's stacks, one hash (the
/// statement check runs it after the parameter rules, which make the layout fit).
pub fn check_commitments(
    dims: @Dims, params: @SoftmaxParams, names: Span<felt252>, witness: Span<TensorCommitment>,
) -> Span<TensorCommitment> {
    let layout = witness_layout(dims, params).unwrap();
    check_stacks(STACKS, @layout, names, witness)
}

/// The proof's column values in `ColumnValues.values()` order (`relations::LO` …).
fn column_values(cols: @ColumnValues) -> Span<QM31> {
    array![
        *cols.lo, *cols.e, *cols.hi, *cols.live, *cols.y, *cols.row_mean, *cols.m_exp,
        *cols.m_limb, *cols.m_norm, *cols.table,
    ]
        .span()
}

/// What the fork leaves to the walk: its final digest, the claim on QK̂ that MHA's QKᵀ step
/// reduces and the claims the walk's witness opening settles (stacks, then the exp table).
#[derive(Drop, Serde, Debug)]
pub struct SoftmaxOutcome {
    pub digest: Blake2sHash,
    pub scores: Claim,
    pub witness: Span<ClaimsOn>,
}

/// The fork from the parent's digest; panics with the failed check.
pub fn verify_softmax(
    dims: @Dims, params: @SoftmaxParams, proof: @SoftmaxProof, a_claim: Claim, parent: felt252,
) -> SoftmaxOutcome {
    let mut channel = fork(parent, TAG, TAG_LEN);
    channel.mix_felts(a_claim.felts());
    let rel = RelationsTrait::draw(ref channel);
    let leaves = verify_logup(instance_vars(dims, params), proof.logup, ref channel);
    check_balance(
        proof.logup,
        array![
            (array![0].span(), array![3].span()), (array![1].span(), array![4].span()),
            (array![2].span(), array![5].span()),
        ]
            .span(),
    );
    let cols = proof.columns;
    let one = QM31Trait::one();
    let numerators = array![one, one, one, *cols.m_exp, *cols.m_limb, *cols.m_norm];
    let mut points = array![];
    let mut i = 0;
    for leaf in leaves.span() {
        assert(*leaf.numerator == *numerators[i], 'logup.numerator');
        points.append(*leaf.point);
        i += 1;
    }
    let points = points.span();
    let norm = norm_at(dims, params, *points[2], *cols.row_mean);
    let tables = table_keys_at(@rel, params, points.slice(3, 3), *cols.table);
    let keys = array![
        rel.exp.of_tuple(*cols.e, array![*cols.live, *cols.y].span()),
        rel.limb.of_tuple(*cols.lo, array![*cols.hi, *cols.live].span()),
        rel.norm.of_tuple(norm, array![].span()), *tables[0], *tables[1], *tables[2],
    ];
    let mut i = 0;
    for leaf in leaves.span() {
        assert(*leaf.denominator == *keys[i], 'softmax.columns');
        i += 1;
    }
    let columns = column_values(cols);
    channel.mix_felts(columns);

    let rho = *points[0];
    let lo_bits = params.lo_bits();
    let u = *cols.lo
        + cols.e.scale(field_pow2(lo_bits))
        + cols.hi.scale(field_pow2(lo_bits + EXP_BITS));
    let (h, s, causal) = (*dims.h, *dims.s, *dims.causal);
    let w_rho = valid_entries_mle(h, s, causal, rho);
    let claim = u - (one - w_rho).scale(M31Trait::new(U_MASK));
    let n = dims.h_vars() + 2 * dims.s_vars();
    let (r_star, final) = verify_sumcheck(
        claim, rounds(proof.recompose.rounds), n, RECOMPOSE_DEGREE, ref channel,
    );
    let w_star = valid_entries_mle(h, s, causal, r_star);
    let (shift, score) = (*proof.shift, *proof.score);
    let c = M31Trait::new(*params.c);
    assert(final == eq_eval(rho, r_star) * w_star * (shift - score.scale(c)), 'softmax.mask');
    channel.mix_felts(array![shift, score].span());
    let witness = opening_claims(
        dims, params, points, columns, Claim { point: r_star, value: shift }, a_claim,
    );
    SoftmaxOutcome { digest: channel.digest, scores: Claim { point: r_star, value: score }, witness }
}

/// The join: the parent absorbs the fork's final digest, then the claim on QK̂.
pub fn join_softmax(ref parent: Poseidon252Channel, outcome: @SoftmaxOutcome) {
    join(ref parent, outcome.digest);
    parent.mix_felts(outcome.scores.felts());
}
