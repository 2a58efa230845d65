//! attn: attention with softmax proven (mirror of prover/layers/attn/model.py `check` and
//! verifier.py; docs/layers/attn.md): mha's unpadding and A·Ṽ, the softmax proof on its
//! Blake2s fork, then mha's QKᵀ and padding from the claim on QK̂.

use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::layers::mha::model::{Dims, DimsTrait};
use crate::layers::mha::verifier::{concat, input_claims, verify_attend, verify_scores};
use crate::pcs::proof::Claim;
use crate::pcs::stack::witness_hash;
use crate::ranges::{HALF, exceeds_half};
use crate::lookups::contract::{LookupClass, LookupClassTrait};
use crate::softmax::params::{QK_BOUND, SoftmaxParamsTrait};
use crate::softmax::verifier::join_softmax;
use crate::walk::layer::LayerClaims;
use crate::walk::proof::AttnProof;
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim, tensor};
use crate::softmax::tables::{exp_table_name, pinned_exp_commitment};
use crate::walk::tensor::{Bound, PublicTensorTrait, TensorCommitment, TensorsTrait, at_most};

/// The exp table of the statement's θ (Python `attn.tables`).
pub fn tables(st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
    let theta = *(*st.dims)[6];
    array![(exp_table_name(theta), pinned_exp_commitment(theta, witness_hash(st.witness)))].span()
}

/// dims (s, h, m, causal, F, c, θ, ε, k_n); inputs k, q, v and output o, each s × h·m; no
/// weights (`statement.shape`); the softmax parameters (`softmax.params`); q and k public and
/// known (public, or hidden with a bound) and int8, and (2^θ + ε)·max|v| ≤ (p − 1)/2 when v
/// is known (`statement.range`); the witness
/// exactly the layout's stacks (`softmax.commitment`). The softmax rules run in the
/// lookup class.
/// Returns softmax's error count over |F| (a model walk sums every node's terms).
pub fn check(st: @PublicStatement, lookup: LookupClass) -> u128 {
    let dims = *st.dims;
    assert(dims.len() == 9, 'statement.shape');
    let (s, h, m, causal) = (*dims[0], *dims[1], *dims[2], *dims[3]);
    assert(s >= 1 && h >= 1 && m >= 1 && causal <= 1, 'statement.shape');
    let wide_h: u64 = h.into();
    let hm: u32 = match (wide_h * m.into()).try_into() {
        Some(hm) => hm,
        None => core::panic_with_felt252('statement.shape'),
    };
    let shape = array![s, hm].span();
    expect_shapes(*st.inputs, array!['k', 'q', 'v'].span(), array![shape, shape, shape].span());
    expect_shapes(*st.outputs, array!['o'].span(), array![shape].span());
    expect_shapes(*st.weights, array![].span(), array![].span());
    let count = lookup.softmax_check_params(dims);
    let (q, k, v) = (tensor(*st.inputs, 'q'), tensor(*st.inputs, 'k'), tensor(*st.inputs, 'v'));
    assert(q.known() && k.known(), 'statement.range');
    let bound: u128 = QK_BOUND.into();
    assert(q.max_magnitude() <= bound, 'statement.range');
    assert(k.max_magnitude() <= bound, 'statement.range');
    if v.known() {
        assert(v.max_magnitude() <= HALF, 'statement.range');
        assert(!exceeds_half(output_bound(st)), 'statement.range');
    }
    let witness = *st.witness;
    lookup.softmax_check_witness(dims, witness.names, witness.commitments());
    count
}

/// (2^θ + ε)·max|v| when v is known: an accepted row of A has entries ≥ 0 summing to at most
/// 2^θ + ε (the bound on o; the parameters are checked first, so θ ≤ 31).
fn output_bound(st: @PublicStatement) -> Option<u128> {
    let v = tensor(*st.inputs, 'v');
    if !v.known() {
        return None;
    }
    let params = SoftmaxParamsTrait::from_dims(*st.dims);
    let row: u128 = crate::pcs::queries::pow2(params.theta).into() + params.eps.into();
    Some(row * v.max_magnitude())
}

/// The bound on o a consumer may assume (docs/model-walk.md), after `check`.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    array![at_most(output_bound(st))].span()
}

/// `outputs` holds the claim on `o`; the claims left are on `k`, `q`, `v` (name order) and on
/// the witness stacks and the exp table. Softmax's fork runs in the lookup class.
pub fn verify(
    st: @PublicStatement,
    proof: @AttnProof,
    outputs: OutputClaims,
    ref channel: Poseidon252Channel,
    lookup: LookupClass,
) -> LayerClaims {
    let d: Dims = DimsTrait::from_statement(st);
    let at = verify_attend(d, proof.unpad, proof.attend, output_claim(outputs, 'o'), ref channel);
    let a_claim = Claim {
        point: concat(array![at.r_x, at.r_s, at.r_y].span()), value: *proof.attend.left,
    };
    let outcome = lookup.softmax_verify(*st.dims, *proof.softmax, a_claim, channel.digest());
    join_softmax(ref channel, @outcome);
    let (scores, witness) = (outcome.scores, outcome.witness);
    let (_, r_2, r_3) = d.split_scores(scores.point);
    let r_p = verify_scores(d, proof.heads, proof.pad, scores, proof.attend, at, ref channel);
    LayerClaims {
        inputs: input_claims(proof.pad, at, r_2, r_3, r_p), weights: array![].span(), witness,
    }
}
