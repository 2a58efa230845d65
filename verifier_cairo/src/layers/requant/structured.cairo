//! Closed-form MLEs of the requant tables (mirror of prover/layers/requant/structured.py), in
//! O(t) for a table of 2^t rows, MSB-first points.

use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::prefix_mask;
use crate::softmax::relations::field_pow2;
use crate::softmax::soundness::pow2_u128 as pow2;
use crate::softmax::structured::index_mle;

/// A signed integer (|v| < 2^31) in the field.
pub fn signed_qm31(v: i64) -> QM31 {
    let one = QM31Trait::one();
    let magnitude: u128 = if v < 0 {
        let m: i64 = -v;
        m.try_into().unwrap()
    } else {
        v.try_into().unwrap()
    };
    let x = one.scale(M31Trait::reduce_u128(magnitude));
    if v < 0 {
        -x
    } else {
        x
    }
}

/// Σ_{i<a} eq(point, i)·i: the MLE of i·[i < a] on {0,1}^t, as the union over the 1-bits j of
/// a of the subcubes "a's bits before j, then 0, then anything".
pub fn prefix_index_sum(point: Span<QM31>, a: i64) -> QM31 {
    let t = point.len();
    if a <= 0 {
        return QM31Trait::zero();
    }
    let size: i64 = pow2(t).try_into().unwrap();
    if a >= size {
        return index_mle(point);
    }
    let a: u128 = a.try_into().unwrap();
    let one = QM31Trait::one();
    // suffix[j] = the index MLE of point[j:], built from the back.
    let mut suffix = array![QM31Trait::zero()];
    let mut j = t;
    while j > 0 {
        j -= 1;
        let last = *suffix[suffix.len() - 1];
        suffix.append(last + (*point[j]).scale(field_pow2(t - 1 - j)));
    }
    let suffix = suffix.span(); // suffix[t − j] is point[j:]'s
    let (mut total, mut prefix) = (QM31Trait::zero(), one);
    let mut j = 0;
    for r in point {
        let shift = pow2(t - 1 - j);
        if (a / shift) % 2 == 1 {
            let high_bits = pow2(t - j);
            let high = (a / high_bits) * high_bits;
            let rest = *suffix[t - j - 1] + one.scale(M31Trait::reduce_u128(high));
            total = total + prefix * (one - *r) * rest;
            prefix = prefix * *r;
        } else {
            prefix = prefix * (one - *r);
        }
        j += 1;
    }
    total
}

/// The MLE of i ↦ clamp(i − offset, lo, hi) on {0,1}^t (lo ≤ hi): with P(c) = Σ_{i<c} eq and
/// I(c) = Σ_{i<c} eq·i, a = lo + offset, b = hi + offset + 1,
/// lo·P(a) + (I(b) − I(a)) − offset·(P(b) − P(a)) + hi·(1 − P(b)).
pub fn clamp_mle(point: Span<QM31>, offset: i64, lo: i64, hi: i64) -> QM31 {
    let (a, b) = (lo + offset, hi + offset + 1);
    let (p_a, p_b) = (mask(point, a), mask(point, b));
    let window = prefix_index_sum(point, b) - prefix_index_sum(point, a);
    p_a * signed_qm31(lo)
        + window
        - (p_b - p_a) * signed_qm31(offset)
        + (QM31Trait::one() - p_b) * signed_qm31(hi)
}

/// P(c): 0 for c ≤ 0, 1 from 2^t on.
fn mask(point: Span<QM31>, c: i64) -> QM31 {
    if c <= 0 {
        return QM31Trait::zero();
    }
    let size: i64 = pow2(point.len()).try_into().unwrap();
    let c: u32 = core::cmp::min(c, size).try_into().unwrap();
    prefix_mask(point, c)
}
