//! The verifier's side of the foldable code (mirror of prover/pcs/code.py, `fold` and
//! `inverse_double`): one fold of a pair and batch inversion of the twiddles.
//!
//! Gas: an M31 reduction (felt252 → u128, one u128 division) costs about as much as a dozen
//! felt252 operations, so `fold_pair` works on unreduced felt252 coordinates and reduces each
//! output coordinate once (4 reductions, against ~30 for the same formula over `QM31`). The
//! fold path keeps its values as `Coords`, canonical coordinates in felt252, from the opened
//! leaves to a group's outputs: no value becomes an `M31` (a u32 range check each) on the way.

use crate::fields::m31::{M31, M31Trait, P};
use crate::fields::qm31::{QM31, UnreducedQM31};

/// A QM31's coordinates a, b, c, d as canonical felt252s.
pub type Coords = [felt252; 4];

pub fn coords(x: QM31) -> Coords {
    [x.a.into(), x.b.into(), x.c.into(), x.d.into()]
}

/// The QM31 of canonical coordinates.
pub fn from_coords(x: Coords) -> QM31 {
    let [a, b, c, d] = x;
    QM31 { a: base(a), b: base(b), c: base(c), d: base(d) }
}

/// A canonical value held in a felt252 as an M31.
pub fn base(x: felt252) -> M31 {
    M31Trait::new(x.try_into().unwrap())
}

/// 1/2 in M31: (p + 1) / 2.
const HALF: felt252 = 0x40000000;
/// p·2^31 > every `even` (< 2^62): keeps `odd − even` non-negative, a multiple of p.
const OFFSET_EVEN: felt252 = 0x7fffffff * 0x80000000;
/// p·2^67 > 5·2^95, the most the negative terms of one coordinate of r·w reach (r < 2^31,
/// w < 2^64); `bd_re` carries it into a (twice) and b, c gets its own.
const OFFSET_PRODUCT: felt252 = 0x7fffffff * 0x80000000000000000;

/// One fold of the pair (W[2j], W[2j+1]) = (lo, hi) with challenge r:
/// (1 − r)·(lo + hi)/2 + r·(lo − hi)/(2x) = (odd − even)·r + even, as Python computes it.
///
/// Per coordinate: even = (lo + hi)·(1/2) < 2^62, odd = (lo − hi + p)·(1/(2x)) < 2^63,
/// w = odd − even + p·2^31 < 2^64; then r·w as a QM31 product ((A + Bu)(C + Du) =
/// AC + BD(2 + i) + (AD + BC)u) with p·2^67 added where terms are negative: every output
/// coordinate stays below 2^100 until its single reduction.
pub fn fold_pair(lo: Coords, hi: Coords, inv_2x: felt252, r: Coords) -> Coords {
    let p: felt252 = P.into();
    let [l0, l1, l2, l3] = lo;
    let [h0, h1, h2, h3] = hi;
    let (e0, e1, e2, e3) = ((l0 + h0) * HALF, (l1 + h1) * HALF, (l2 + h2) * HALF, (l3 + h3) * HALF);
    let w0 = (l0 - h0 + p) * inv_2x - e0 + OFFSET_EVEN;
    let w1 = (l1 - h1 + p) * inv_2x - e1 + OFFSET_EVEN;
    let w2 = (l2 - h2 + p) * inv_2x - e2 + OFFSET_EVEN;
    let w3 = (l3 - h3 + p) * inv_2x - e3 + OFFSET_EVEN;
    let [r0, r1, r2, r3] = r;
    // r = (r0 + r1 i) + (r2 + r3 i)u, w = (w0 + w1 i) + (w2 + w3 i)u.
    let bd_re = r2 * w2 - r3 * w3 + OFFSET_PRODUCT;
    let bd_im = r2 * w3 + r3 * w2;
    [
        M31Trait::reduce_felt(r0 * w0 - r1 * w1 + 2 * bd_re - bd_im + e0),
        M31Trait::reduce_felt(r0 * w1 + r1 * w0 + bd_re + 2 * bd_im + e1),
        M31Trait::reduce_felt(r0 * w2 - r1 * w3 + r2 * w0 - r3 * w1 + OFFSET_PRODUCT + e2),
        M31Trait::reduce_felt(r0 * w3 + r1 * w2 + r2 * w1 + r3 * w0 + e3),
    ]
}

/// One fold of base values scaled by β, unreduced: fold is linear, so fold(β·v) =
/// β·even + (β·r)·(odd − even) with even = (v_lo + v_hi)/2 and odd = (v_lo − v_hi)/(2x). The
/// first group folds its polynomials' leaves this way, summing over polynomials before one
/// reduction, instead of first scaling every value into QM31. even < 2^62, odd − even + p·2^31
/// < 2^64, so each coordinate stays below 2^96.
pub fn fold_base_pair(
    v_lo: felt252, v_hi: felt252, inv_2x: felt252, beta: Coords, beta_r: Coords,
) -> UnreducedQM31 {
    let p: felt252 = P.into();
    let even = (v_lo + v_hi) * HALF;
    let w = (v_lo - v_hi + p) * inv_2x - even + OFFSET_EVEN;
    let [b0, b1, b2, b3] = beta;
    let [s0, s1, s2, s3] = beta_r;
    UnreducedQM31 {
        a: b0 * even + s0 * w, b: b1 * even + s1 * w, c: b2 * even + s2 * w, d: b3 * even + s3 * w,
    }
}

/// Every x^-1 with one inversion (Montgomery's trick), **last first**: the inverse of xs[0] is
/// the last entry, so a caller reading them in the order of `xs` pops from the back. Every x is
/// a nonzero integer below 2^32 (a doubled twiddle of the line domains); the inverses are
/// canonical.
pub fn batch_inverse(xs: Span<felt252>) -> Span<felt252> {
    // before[i] = x_0 · … · x_(i−1)
    let mut before = array![];
    let mut acc: felt252 = 1;
    for x in xs {
        before.append(acc);
        acc = M31Trait::reduce_felt(acc * *x);
    }
    // Backwards: `inv` is (x_0 · … · x_i)^-1, so x_i^-1 = inv · before[i].
    let mut inv: felt252 = if xs.is_empty() {
        acc
    } else {
        base(acc).inverse().into()
    };
    let mut before = before.span();
    let mut xs = xs;
    let mut out = array![];
    while let Some(x) = xs.pop_back() {
        out.append(M31Trait::reduce_felt(inv * *before.pop_back().unwrap()));
        inv = M31Trait::reduce_felt(inv * *x);
    }
    out.span()
}
