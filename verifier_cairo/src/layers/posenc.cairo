//! Posenc (mirror of prover/layers/posenc/model.py `check` and verifier.py): o = x + p on the
//! first ŝ = next_pow2(s) rows of the table, proven by X̂(r) and one sibling claim per halving
//! of P̂ (docs/layers/posenc.md).

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::QM31;
use crate::mle::log2_padded;
use crate::pcs::proof::Claim;
use crate::pcs::queries::pow2;
use crate::ranges::HALF;
use crate::padding::{expect_empty_rows, verify_empty_rows};
use crate::walk::layer::{ClaimsOn, LayerClaims, single};
use crate::walk::proof::PosencProof;
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim, tensor};
use crate::walk::tensor::signed;

/// dims (s, c, e) with s ≤ c; x: s × e, o: ŝ × e, p: c × e; and max |o − x| over the s token
/// rows ≤ (p−1)/2 (then o = x + p over the integers; docs/layers/posenc.md), unless x or o is
/// committed: the relation then holds mod p only (prover/ranges.py `check_ranges`).
pub fn check(st: @PublicStatement) {
    let dims = *st.dims;
    assert(dims.len() == 3, 'statement.shape');
    let (s, c, e) = (*dims[0], *dims[1], *dims[2]);
    assert(s >= 1 && c >= 1 && e >= 1 && s <= c, 'statement.shape');
    // ŝ = 2^32 (s > 2^31) is no u32 dim: o cannot have that shape (`statement.shape`, as the
    // shape check below would say).
    assert(log2_padded(s) < 32, 'statement.shape');
    let rows = pow2(log2_padded(s));
    expect_shapes(*st.inputs, array!['x'].span(), array![array![s, e].span()].span());
    expect_shapes(*st.outputs, array!['o'].span(), array![array![rows, e].span()].span());
    expect_shapes(*st.weights, array!['p'].span(), array![array![c, e].span()].span());
    let (x, o) = (tensor(*st.inputs, 'x'), tensor(*st.outputs, 'o'));
    if x.commitment.is_some() || o.commitment.is_some() {
        return;
    }
    let (x, o) = (x.values, o.values);
    let half: i64 = HALF.try_into().unwrap();
    let mut i = 0;
    for v in x {
        let d = signed(*o[i]) - signed(*v);
        assert(d <= half && -d <= half, 'statement.range');
        i += 1;
    }
}

pub fn verify(
    st: @PublicStatement, proof: @PosencProof, outputs: OutputClaims, ref channel: Poseidon252Channel,
) -> LayerClaims {
    let dims = *st.dims;
    let steps = log2_padded(*dims[1]) - log2_padded(*dims[0]);
    assert(proof.siblings.len() == steps, 'posenc.sibling_count');
    let out = output_claim(outputs, 'o');
    let x_value = *proof.x_value;
    channel.mix_felts(array![x_value].span());
    let mut claim = Claim { point: out.point, value: out.value - x_value };
    for sibling in proof.siblings.span() {
        claim = halve_up(claim, *sibling, ref channel);
    }
    // A committed x's padding rows s … ŝ − 1 are zero (the check cannot read them).
    let mut x_claims = array![Claim { point: out.point, value: x_value }];
    expect_empty_rows(proof.empty_rows, tensor(*st.inputs, 'x').commitment.is_some());
    if let Option::Some(empty_rows) = proof.empty_rows {
        let (row_vars, col_vars) = (log2_padded(*dims[0]), log2_padded(*dims[2]));
        let point = verify_empty_rows(empty_rows, 1, *dims[0], row_vars, col_vars, ref channel);
        x_claims.append(Claim { point, value: *empty_rows.values[0] });
    }
    LayerClaims {
        inputs: array![ClaimsOn { name: 'x', claims: x_claims.span() }].span(),
        weights: array![single('p', claim)].span(),
        witness: array![].span(),
    }
}

/// One halving step: the claim moves to the table's first ŝ·2 rows at (ρ, point).
fn halve_up(claim: Claim, sibling: QM31, ref channel: Poseidon252Channel) -> Claim {
    channel.mix_felts(array![sibling].span());
    let rho = channel.draw_secure_felt();
    let mut point = array![rho];
    point.append_span(claim.point);
    Claim { point: point.span(), value: claim.value + (sibling - claim.value) * rho }
}
