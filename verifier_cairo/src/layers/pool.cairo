//! pool (mirror of prover/layers/pool/model.py `check` and verifier.py; docs/layers/pool.md):
//! y = Σ_i x[i], the column sums of x (s × d). For multilinear X̃ on k row variables the row
//! sum is 2^k·X̃(½, …, ½, ·) over x's padded rows, so the claim ỹ(r) is the claim
//! X̃(½, …, ½, r) = ỹ(r)/2^k, with no message; a public x is padded with zeros, a committed
//! one shows its padding rows are zero (the empty-rows sum-check).

use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::QM31Trait;
use crate::mle::{half, log2_padded};
use crate::padding::{expect_empty_rows, verify_empty_rows};
use crate::pcs::proof::Claim;
use crate::ranges::{exceeds_half, max_col_abs_sum};
use crate::walk::tensor::{Bound, Known, at_most};
use crate::walk::layer::{ClaimsOn, LayerClaims};
use crate::walk::proof::PoolProof;
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim, tensor};

/// dims (s, d); x of s × d, y of d, no weights (`statement.shape`); when x is known, every
/// column's Σ_i |x[i, c]| ≤ (p − 1)/2 (`statement.range`: then y = Σ_i x[i] over the integers).
pub fn check(st: @PublicStatement) {
    let dims = *st.dims;
    assert(dims.len() == 2, 'statement.shape');
    let (s, d) = (*dims[0], *dims[1]);
    assert(s >= 1 && d >= 1, 'statement.shape');
    expect_shapes(*st.inputs, array!['x'].span(), array![array![s, d].span()].span());
    expect_shapes(*st.outputs, array!['y'].span(), array![array![d].span()].span());
    expect_shapes(*st.weights, array![].span(), array![].span());
    assert(!exceeds_half(bound(st)), 'statement.range');
}

/// max_c Σ_i |x[i, c]| when x is known (hidden: s times its bound), the bound on y.
fn bound(st: @PublicStatement) -> Option<u128> {
    let x = tensor(*st.inputs, 'x');
    let (s, d) = (*(*st.dims)[0], *(*st.dims)[1]);
    match x.known {
        Known::Values => Some(max_col_abs_sum(x.values, d)),
        Known::AtMost(bound) => Some(s.into() * bound.max),
        _ => None,
    }
}

/// The bound on y a consumer may assume (docs/model-walk.md), after `check`.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    array![at_most(bound(st))].span()
}

/// The claim on x that the claim on y equals (nothing is absorbed), and for a committed x the
/// empty-rows sum-check of its rows s … ŝ − 1 and its claim.
pub fn verify(
    st: @PublicStatement, proof: @PoolProof, outputs: OutputClaims, ref channel: Poseidon252Channel,
) -> LayerClaims {
    let out = output_claim(outputs, 'y');
    let dims = *st.dims;
    let k = log2_padded(*dims[0]);
    let half = half();
    let mut point = array![];
    let mut scale = QM31Trait::one();
    for _ in 0..k {
        point.append(half);
        scale = scale * half;
    }
    point.append_span(out.point);
    let mut claims = array![Claim { point: point.span(), value: out.value * scale }];
    expect_empty_rows(proof.empty_rows, tensor(*st.inputs, 'x').commitment.is_some());
    if let Option::Some(empty_rows) = proof.empty_rows {
        let (s, d) = (*dims[0], *dims[1]);
        let point = verify_empty_rows(empty_rows, 1, s, k, log2_padded(d), ref channel);
        claims.append(Claim { point, value: *empty_rows.values[0] });
    }
    let x = ClaimsOn { name: 'x', claims: claims.span() };
    LayerClaims { inputs: array![x].span(), weights: array![].span(), witness: array![].span() }
}
