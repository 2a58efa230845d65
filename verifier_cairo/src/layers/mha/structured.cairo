//! Closed-form MLEs of the layer's fixed tensors, so the verifier never builds them (mirror of
//! prover/layers/mha/structured.py; derivations in docs/layers/mha.md, "Closed forms"). Each
//! is the same field element as its Python twin; points are MSB-first.

use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{binary, eq_eval, eq_table, log2_padded, prefix_mask};
use crate::pcs::queries::pow2;

/// MASK_VALUE = −2^29 as a field element, p − 2^29.
const MASK: u32 = 0x5fffffff;

/// b̃(point) for b[x, y] = eq(x, r_head): y does not occur, so b̃ = eq(point_x, r_head).
pub fn head_select_mle(r_head: Span<QM31>, point: Span<QM31>) -> QM31 {
    eq_eval(point.slice(0, r_head.len()), r_head)
}

/// z̃(a, b) = Σ_{i<s, j<s, (j≤i if causal)} eq(a, i)·eq(b, j), ŝ = 2^len(a). Non-causal, z is
/// the product of the two prefix masks; causal, j ≤ i < s already implies j < s, so the DP of
/// Python's `zeroifier_mle` needs only its i < s and j < i comparisons (`lower_mle`).
pub fn zeroifier_mle(s: u32, causal: bool, a: Span<QM31>, b: Span<QM31>) -> QM31 {
    if causal {
        lower_mle(s, a, b)
    } else {
        prefix_mask(a, s) * prefix_mask(b, s)
    }
}

/// Σ_{j ≤ i < s} eq(a, i)·eq(b, j): Python's DP over the bit pairs (i_t, j_t), MSB first, on
/// the four states of (i < s, j < i), each decided (L) or equal so far (E); a pair that
/// breaks an undecided comparison (i_t > s_t, or j_t > i_t) is dropped, and at the end i < s
/// must be decided, j < i either. s = ŝ starts with i < s decided. With w_ij = eq₁(a_t, i)·
/// eq₁(b_t, j), a level moves (from LL, LE, EL, EE; weights summed over the free bits):
///
///     s_t = 1:  LL += LE·w10 + EL·(1 − a_t),  LE = LE·(w00 + w11) + EE·w00,
///               EL = EL·a_t + EE·w10,         EE = EE·w11;
///     s_t = 0:  LL += LE·w10,  LE = LE·(w00 + w11),  EL = EL·(1 − a_t),  EE = EE·w00.
fn lower_mle(s: u32, a: Span<QM31>, b: Span<QM31>) -> QM31 {
    let (zero, one) = (QM31Trait::zero(), QM31Trait::one());
    let n = a.len();
    let full = s == pow2(n);
    let (mut ll, mut le, mut el, mut ee) = if full {
        (zero, one, zero, zero)
    } else {
        (zero, zero, zero, one)
    };
    let s_bits = binary(if full {
        0
    } else {
        s
    }, n);
    let mut t = 0;
    for s_bit in s_bits {
        let (x, y) = (*a[t], *b[t]);
        let w11 = x * y;
        let w10 = x - w11;
        let w00 = one - x - y + w11;
        let le_stay = le * (w00 + w11);
        if *s_bit {
            ll = ll + le * w10 + el * (one - x);
            le = le_stay + ee * w00;
            el = el * x + ee * w10;
            ee = ee * w11;
        } else {
            ll = ll + le * w10;
            le = le_stay;
            el = el * (one - x);
            ee = ee * w00;
        }
        t += 1;
    }
    ll + le
}

/// m̃ = MASK·(1 − z̃): m is MASK exactly where z is 0, and the MLE is linear.
pub fn mask_mle(s: u32, causal: bool, a: Span<QM31>, b: Span<QM31>) -> QM31 {
    (QM31Trait::one() - zeroifier_mle(s, causal, a, b)) * QM31Trait::new(MASK, 0, 0, 0)
}

/// P̃(x, y) for the padding matrix P (d × ĥm̂), y = (y_h, y_m) on log ĥ + log m̂ variables.
/// With m = 2^a·μ, μ odd: P̃ = eq(x_lo, y_m,lo)·P̃_{h,μ}(x_hi, y_h, y_m,hi) (`divide`).
pub fn pad_mle(h: u32, m: u32, x: Span<QM31>, y: Span<QM31>) -> QM31 {
    let mut a = 0;
    let mut mu = m;
    while mu % 2 == 0 {
        mu /= 2;
        a += 1;
    }
    let h_vars = log2_padded(h);
    let (y_h, y_m) = (y.slice(0, h_vars), y.slice(h_vars, y.len() - h_vars));
    let (n, k) = (x.len() - a, y_m.len() - a);
    eq_eval(x.slice(n, a), y_m.slice(k, a)) * divide(h, mu, x.slice(0, n), y_h, y_m.slice(0, k))
}

/// Ũ(x, y) = P̃(y, x): U = Pᵀ.
pub fn unpad_mle(h: u32, m: u32, x: Span<QM31>, y: Span<QM31>) -> QM31 {
    pad_mle(h, m, y, x)
}

/// Σ_{i < h·μ} eq(x, i)·eq(y_h, ⌊i/μ⌋)·eq(y_r, i mod μ) for odd μ, by long division (Python's
/// `_divide`): per remainder ρ, the weight of the prefixes whose quotient is below h's prefix
/// (`below`) or equal to it (`equal`). Bit b sends ρ to 2ρ + b − c·μ with quotient bit
/// c = [2ρ + b ≥ μ], weighted eq₁(x_t, b)·eq₁(y_h,t, c) (weight 1 for quotient bits above
/// y_h's). For each b that map is a bijection, so each new remainder ρ′ is gathered from its
/// one source per b: c = 0 and ρ = (ρ′ − b)/2 when ρ′ ≡ b (mod 2), else c = 1 and
/// ρ = (ρ′ + μ − b)/2 (μ is odd).
fn divide(h: u32, mu: u32, x: Span<QM31>, y_h: Span<QM31>, y_r: Span<QM31>) -> QM31 {
    let (zero, one) = (QM31Trait::zero(), QM31Trait::one());
    let n = x.len();
    let top = n - y_h.len();
    let full = h == pow2(n); // then every quotient is below h and `equal` stays empty
    let h_bits = binary(if full {
        0
    } else {
        h
    }, n);
    // The empty prefix: remainder 0, quotient equal to h's (below it when full).
    let mut start = array![one];
    for _ in 1..mu {
        start.append(zero);
    }
    let mut none = array![];
    for _ in 0..mu {
        none.append(zero);
    }
    let (mut equal, mut below) = if full {
        (none.span(), start.span())
    } else {
        (start.span(), none.span())
    };
    for t in 0..n {
        let (q0, q1) = if t < top {
            (one, one)
        } else {
            let r = *y_h[t - top];
            (one - r, r)
        };
        let x1 = *x[t];
        let x0 = one - x1;
        // weights[2b + c] = eq₁(x_t, b)·quotient_c
        let weights = array![x0 * q0, x0 * q1, x1 * q0, x1 * q1].span();
        let h_bit = *h_bits[t];
        let mut next_equal = array![];
        let mut next_below = array![];
        for dest in 0..mu {
            let mut to_below = zero;
            let mut to_equal = zero;
            for b in 0..2_u32 {
                let c = (dest + b) % 2;
                let src = (dest + c * mu - b) / 2;
                let w = *weights[2 * b + c];
                let eq_src = *equal[src];
                // c < h_t moves an equal prefix below; c = h_t keeps it equal.
                if c == 0 && h_bit {
                    to_below = to_below + (*below[src] + eq_src) * w;
                } else {
                    to_below = to_below + *below[src] * w;
                }
                if (c == 1) == h_bit {
                    to_equal = to_equal + eq_src * w;
                }
            }
            next_equal.append(to_equal);
            next_below.append(to_below);
        }
        equal = next_equal.span();
        below = next_below.span();
    }
    let table = eq_table(y_r);
    let mut total = zero;
    let mut rho = 0;
    for value in below {
        total = total + *value * *table[rho];
        rho += 1;
    }
    total
}
