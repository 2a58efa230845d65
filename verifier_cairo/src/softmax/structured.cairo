//! Closed-form MLEs the softmax verifier evaluates itself, each in O(number of variables)
//! (mirror of prover/softmax/structured.py). Points are MSB-first; each function returns the
//! same field element as its Python twin. Points must have exactly the variables of their
//! axes (H + 2S, H + S): the verifier builds them so (Python raises ValueError otherwise).

use crate::fields::qm31::{QM31, QM31Trait};
use crate::layers::mha::structured::zeroifier_mle;
use crate::mle::{log2_padded, prefix_mask};

/// w̃ on (head, i, j) for w = [head < h]·z[i, j]: a product of functions of disjoint
/// variables, so its MLE is prefix_mask(head, h)·z̃(i, j).
pub fn valid_entries_mle(h: u32, s: u32, causal: bool, point: Span<QM31>) -> QM31 {
    let (h_vars, s_vars) = (log2_padded(h), log2_padded(s));
    let head = point.slice(0, h_vars);
    let i = point.slice(h_vars, s_vars);
    let j = point.slice(h_vars + s_vars, s_vars);
    prefix_mask(head, h) * zeroifier_mle(s, causal, i, j)
}

/// ṽ on (head, i) for v = [head < h]·[i < s].
pub fn valid_rows_mle(h: u32, s: u32, point: Span<QM31>) -> QM31 {
    let (h_vars, s_vars) = (log2_padded(h), log2_padded(s));
    prefix_mask(point.slice(0, h_vars), h) * prefix_mask(point.slice(h_vars, s_vars), s)
}

/// The MLE of x ↦ x on {0,1}^k (MSB first): Σ_j 2^(k−1−j)·ρ_j, linear already.
pub fn index_mle(point: Span<QM31>) -> QM31 {
    let mut total = QM31Trait::zero();
    for r in point {
        total = total + total + *r;
    }
    total
}

/// The MLE of x ↦ [x = 0]: eq(point, 0) = Π_j (1 − ρ_j).
pub fn is_zero_mle(point: Span<QM31>) -> QM31 {
    let one = QM31Trait::one();
    let mut acc = one;
    for r in point {
        acc = acc * (one - *r);
    }
    acc
}
