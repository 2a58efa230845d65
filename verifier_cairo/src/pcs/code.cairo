//! The verifier's side of the foldable code (mirror of prover/pcs/code.py, `fold` and
//! `inverse_double`): one fold of a pair and batch inversion of the twiddles.
//!
//! Gas: an M31 reduction costs four range checks (six above 2^128), a felt252 product none,
//! and on devnet a call is charged by its range checks (docs/cairo-verifier.md, "Accounts and
//! gas"). So the fold path keeps its values as `Coords` in felt252 from the opened leaves to a
//! group's outputs and folds them **unreduced**: a fold of coordinates below 2^B gives
//! coordinates below 2^(B + `FOLD_GROWTH`), so three folds of canonical values stay below
//! 2^241 < P and a block of 16 values is reduced twice on its way to one (against after every
//! fold: 60 reductions). The caller tracks B (`FoldOffsets`).

use core::num::traits::Pow;
use crate::bounded_int::{Double, chunk_inverses, chunk_products, residue_one, upcast};
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
/// p·2^31 > every `even` (< 2^62) of `fold_base_pair`: keeps `odd − even` non-negative.
const OFFSET_EVEN: felt252 = 0x7fffffff * 0x80000000;
/// How many bits a fold adds to its inputs' bound (`fold_pair`).
pub const FOLD_GROWTH: u32 = 70;
/// The largest bound a fold may reach: 2^251 < P, so no coordinate wraps.
pub const MAX_BITS: u32 = 251;
/// The bound of canonical coordinates.
pub const CANONICAL_BITS: u32 = 31;

/// The multiples of p `fold_pair` adds for inputs below 2^bits (bits ≥ 31), so that every
/// coordinate it forms is a non-negative integer: `diff` = p·2^(bits − 30) ∈ [2^bits, 2^(bits+1)]
/// under lo − hi, `even` = p·2^(bits + 1) ≥ 2^(bits + 31) under odd − even, `product` =
/// p·2^(bits + 36) under the negative products of r·w.
#[derive(Copy, Drop)]
pub struct FoldOffsets {
    pub bits: u32,
    diff: felt252,
    even: felt252,
    product: felt252,
}

pub fn fold_offsets(bits: u32) -> FoldOffsets {
    assert(bits >= CANONICAL_BITS && bits + FOLD_GROWTH <= MAX_BITS, 'pcs.fold_bits');
    let diff = P.into() * Pow::pow(2_felt252, bits - 30);
    FoldOffsets { bits, diff, even: diff * 0x80000000, product: diff * 0x40000000000000000 }
}

/// One fold of the pair (W[2j], W[2j+1]) = (lo, hi) with challenge r, unreduced:
/// (1 − r)·(lo + hi)/2 + r·(lo − hi)/(2x) = (odd − even)·r + even, as Python computes it (mod p).
///
/// For coordinates below 2^B (`offsets.bits`), inv_2x and r canonical: even = (lo + hi)·(1/2)
/// < 2^(B+31), lo − hi + diff < 2^(B+2), odd < 2^(B+33), w = odd − even + `even` < 2^(B+34);
/// every product r_i·w_j < 2^(B+65), and r·w as a QM31 product ((A + Bu)(C + Du) =
/// AC + BD(2 + i) + (AD + BC)u) with `product` ≈ 2^(B+67) added where terms are negative
/// (`bd_re` carries it into a twice and b, c gets its own): every output coordinate is a
/// non-negative integer below 2^(B+70).
pub fn fold_pair(lo: Coords, hi: Coords, inv_2x: felt252, r: Coords, offsets: @FoldOffsets) -> Coords {
    let FoldOffsets { bits: _, diff, even, product } = *offsets;
    let [l0, l1, l2, l3] = lo;
    let [h0, h1, h2, h3] = hi;
    let (e0, e1, e2, e3) = ((l0 + h0) * HALF, (l1 + h1) * HALF, (l2 + h2) * HALF, (l3 + h3) * HALF);
    let w0 = (l0 - h0 + diff) * inv_2x - e0 + even;
    let w1 = (l1 - h1 + diff) * inv_2x - e1 + even;
    let w2 = (l2 - h2 + diff) * inv_2x - e2 + even;
    let w3 = (l3 - h3 + diff) * inv_2x - e3 + even;
    let [r0, r1, r2, r3] = r;
    // r = (r0 + r1 i) + (r2 + r3 i)u, w = (w0 + w1 i) + (w2 + w3 i)u.
    let bd_re = r2 * w2 - r3 * w3 + product;
    let bd_im = r2 * w3 + r3 * w2;
    [
        r0 * w0 - r1 * w1 + 2 * bd_re - bd_im + e0, r0 * w1 + r1 * w0 + bd_re + 2 * bd_im + e1,
        r0 * w2 - r1 * w3 + r2 * w0 - r3 * w1 + product + e2, r0 * w3 + r1 * w2 + r2 * w1 + r3 * w0 + e3,
    ]
}

/// Every coordinate of a word reduced: canonical again.
pub fn reduce_word(word: Span<felt252>) -> Span<felt252> {
    let mut out = array![];
    let mut rest = word;
    // A value (four coordinates) a loop step: a step costs a range check.
    while let Some(value) = rest.multi_pop_front::<4>() {
        let [a, b, c, d] = value.unbox();
        out.append(M31Trait::reduce_felt(a));
        out.append(M31Trait::reduce_felt(b));
        out.append(M31Trait::reduce_felt(c));
        out.append(M31Trait::reduce_felt(d));
    }
    for x in rest {
        out.append(M31Trait::reduce_felt(*x));
    }
    out.span()
}

/// One fold of base values scaled by β, unreduced: fold is linear, so fold(β·v) =
/// β·even + (β·r)·(odd − even) with even = (v_lo + v_hi)/2 and odd = (v_lo − v_hi)/(2x). The
/// first group folds its polynomials' leaves this way, summing over polynomials, instead of
/// first scaling every value into QM31. even < 2^62, odd − even + p·2^31 < 2^64, so each
/// coordinate stays below 2^96 (a sum of k of them below 2^(96 + ⌈log₂ k⌉)).
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

/// The inverses of nonzero doubled twiddles (`Double`: 2x, x a residue), last first (the fold
/// path pops them from the back), canonical.
///
/// Chunks of three: the running product before a chunk is reduced, the two inside it are not,
/// and each inverse is one product of two reduced factors and two xs (`chunk_products`,
/// `chunk_inverses` in bounded integers): 5 divisions per three inverses, one loop step a chunk.
/// A last chunk of one or two is filled up with 1s, whose inverses are dropped.
pub fn batch_inverse(xs: Span<Double>) -> Span<felt252> {
    let one: Double = upcast(residue_one());
    let mut chunks = array![];
    let mut acc = residue_one();
    let mut rest = xs;
    while let Some(chunk) = rest.multi_pop_front::<3>() {
        let [a, b, c] = chunk.unbox();
        let (after_a, after_b, next) = chunk_products(acc, a, b, c);
        chunks.append((acc, after_a, after_b, [a, b, c]));
        acc = next;
    }
    // The last chunk's fill: how many of its inverses are dropped.
    let mut dropped: u32 = 0;
    if let Some(a) = rest.pop_front() {
        let (b, fill) = match rest.pop_front() {
            Some(b) => (*b, 1),
            None => (one, 2),
        };
        let (after_a, after_b, next) = chunk_products(acc, *a, b, one);
        chunks.append((acc, after_a, after_b, [*a, b, one]));
        acc = next;
        dropped = fill;
    }
    let mut out = array![];
    if chunks.is_empty() {
        return out.span();
    }
    let mut inv = M31Trait::from_residue(acc).inverse().residue();
    let mut chunks = chunks.span();
    while let Some(chunk) = chunks.pop_back() {
        let (before, after_a, after_b, [a, b, c]) = *chunk;
        let ([inv_a, inv_b, inv_c], inv_before) = chunk_inverses(
            inv, before, after_a, after_b, a, b, c,
        );
        if dropped == 0 {
            out.append(upcast(inv_c));
        }
        if dropped <= 1 {
            out.append(upcast(inv_b));
        }
        out.append(upcast(inv_a));
        dropped = 0;
        inv = inv_before;
    }
    out.span()
}
