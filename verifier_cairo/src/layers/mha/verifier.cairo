//! MHA verifier (mirror of prover/layers/mha/verifier.py, and of prover.py's `input_claims`):
//! unpadding, A·Ṽ, masking, QKᵀ and the λ-batched padding, walking back from the claims on
//! O and S_M; beyond the walk's reading of the public tensors, only closed forms
//! (`structured`) are evaluated.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::QM31;
use crate::mle::eq_eval;
use crate::pcs::proof::Claim;
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::layer::{ClaimsOn, LayerClaims, single};
use crate::walk::proof::{HeadProductStep, MhaProof, OneFactorStep, PadStep};
use crate::walk::statement::{OutputClaims, PublicStatement, output_claim};
use super::heads::verify_head_product;
use super::model::{Dims, DimsTrait};
use super::structured::{mask_mle, pad_mle, unpad_mle, zeroifier_mle};

const UNPAD_DEGREE: u32 = 2; // Ô(r_s, x)·U(x, r_d)
const MASK_DEGREE: u32 = 3; // eq(x, r)·ẑ(x)·QK̂(x)
const PAD_DEGREE: u32 = 2; // X(r_row, x)·P(x, r_col)

/// Where unpadding and A·Ṽ end: A is claimed at (r_x, r_s, r_y), Ṽ at (r_x, r_y, r_m).
#[derive(Copy, Drop)]
pub struct AttendPoint {
    pub r_s: Span<QM31>,
    pub r_x: Span<QM31>,
    pub r_y: Span<QM31>,
    pub r_m: Span<QM31>,
}

/// Steps 1–2 from the claim on O; the claim on A it leaves is (at.a, attend.left).
pub fn verify_attend(
    d: Dims,
    unpad: @OneFactorStep,
    attend: @HeadProductStep,
    o: Claim,
    ref channel: Poseidon252Channel,
) -> AttendPoint {
    let (s_vars, h_vars) = (d.s_vars(), d.h_vars());
    let r_s = o.point.slice(0, s_vars);
    let r_d = o.point.slice(s_vars, o.point.len() - s_vars);
    let (point, final) = verify_sumcheck(
        o.value, rounds(unpad.sumcheck.rounds), h_vars + d.m_vars(), UNPAD_DEGREE, ref channel,
    );
    let value = *unpad.value;
    assert(final == value * unpad_mle(d.h, d.m, point, r_d), 'mha.unpad');
    channel.mix_felts(array![value].span());

    let r_h = point.slice(0, h_vars);
    let r_m = point.slice(h_vars, point.len() - h_vars);
    let point = verify_head_product(attend, value, r_h, s_vars, ref channel, 'mha.attend');
    AttendPoint {
        r_s, r_x: point.slice(0, h_vars), r_y: point.slice(h_vars, point.len() - h_vars), r_m,
    }
}

/// Step 3 from the claim on S_M: the claim on QK̂ it leaves.
fn verify_mask(d: Dims, mask: @OneFactorStep, sm: Claim, ref channel: Poseidon252Channel) -> Claim {
    let (_, r_row, r_col) = d.split_scores(sm.point);
    let claim = sm.value - mask_mle(d.s, d.causal, r_row, r_col);
    let (point, final) = verify_sumcheck(
        claim, rounds(mask.sumcheck.rounds), d.h_vars() + 2 * d.s_vars(), MASK_DEGREE, ref channel,
    );
    let (_, r_2, r_3) = d.split_scores(point);
    let z = zeroifier_mle(d.s, d.causal, r_2, r_3);
    let value = *mask.value;
    assert(final == eq_eval(point, sm.point) * z * value, 'mha.mask');
    channel.mix_felts(array![value].span());
    Claim { point, value }
}

/// Steps 4–5 from the claim on QK̂ (V's claim from A·Ṽ joins the padding by λ); returns the
/// padding's point r_p.
pub fn verify_scores(
    d: Dims,
    heads: @HeadProductStep,
    pad: @PadStep,
    scores: Claim,
    attend: @HeadProductStep,
    at: AttendPoint,
    ref channel: Poseidon252Channel,
) -> Span<QM31> {
    let (r_1, _, _) = d.split_scores(scores.point);
    let r_c = verify_head_product(heads, scores.value, r_1, d.m_vars(), ref channel, 'mha.heads');

    let lam = channel.draw_secure_felts(2);
    let (lam_1, lam_2) = (*lam[0], *lam[1]);
    let claim = *heads.left + lam_1 * *heads.right + lam_2 * *attend.right;
    let (point, final) = verify_sumcheck(
        claim, rounds(pad.sumcheck.rounds), d.d_vars(), PAD_DEGREE, ref channel,
    );
    let p_qk = pad_mle(d.h, d.m, point, r_c);
    let p_v = pad_mle(d.h, d.m, point, concat(array![at.r_x, at.r_m].span()));
    let (q, k, v) = (*pad.q, *pad.k, *pad.v);
    assert(final == (q + lam_1 * k) * p_qk + lam_2 * v * p_v, 'mha.pad');
    channel.mix_felts(array![q, k, v].span());
    point
}

/// `outputs` are the claims on `o` and `s_m` (name order); the claims left are on the inputs
/// `a`, `k`, `q`, `v`, one each, in name order.
pub fn verify(
    st: @PublicStatement, proof: @MhaProof, outputs: OutputClaims, ref channel: Poseidon252Channel,
) -> LayerClaims {
    let d = DimsTrait::from_statement(st);
    let at = verify_attend(d, proof.unpad, proof.attend, output_claim(outputs, 'o'), ref channel);
    let scores = verify_mask(d, proof.mask, output_claim(outputs, 's_m'), ref channel);
    let (_, r_2, r_3) = d.split_scores(scores.point);
    let r_p = verify_scores(d, proof.heads, proof.pad, scores, proof.attend, at, ref channel);
    let a = concat(array![at.r_x, at.r_s, at.r_y].span());
    let mut inputs = array![single('a', Claim { point: a, value: *proof.attend.left })];
    inputs.append_span(input_claims(proof.pad, at, r_2, r_3, r_p));
    LayerClaims { inputs: inputs.span(), weights: array![].span(), witness: array![].span() }
}

/// The claims on K, Q, V (name order), the same for mha and attn (Python `input_claims`).
pub fn input_claims(
    pad: @PadStep, at: AttendPoint, r_2: Span<QM31>, r_3: Span<QM31>, r_p: Span<QM31>,
) -> Span<ClaimsOn> {
    array![
        single('k', Claim { point: concat(array![r_3, r_p].span()), value: *pad.k }),
        single('q', Claim { point: concat(array![r_2, r_p].span()), value: *pad.q }),
        single('v', Claim { point: concat(array![at.r_y, r_p].span()), value: *pad.v }),
    ]
        .span()
}

/// The coordinates of several points one after the other.
pub fn concat(parts: Span<Span<QM31>>) -> Span<QM31> {
    let mut out = array![];
    for part in parts {
        out.append_span(*part);
    }
    out.span()
}
