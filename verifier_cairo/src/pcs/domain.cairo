//! The fold twiddles of the line domains, at the positions a query needs (mirror of the
//! verifier side of prover/pcs/domain.py, `twiddles_at`, and of `double_x`, here
//! `bounded_int::residue_double_x`).
//!
//! X_ℓ[j] = x(h_ℓ^(1 + 4·bitrev_ℓ(j))), h_ℓ = G^(2^(29−ℓ)), and a fold at a domain of log size ℓ
//! uses tw[j] = X_ℓ[2j] = x(h_ℓ^(1 + 4·bitrev_(ℓ−1)(j))). A group's first fold needs the 2^k
//! twiddles of an aligned block j = b·2^k + i; since bitrev_(ℓ−1)(b·2^k + i) =
//! bitrev_(ℓ−1−k)(b) + bitrev_k(i)·2^(ℓ−1−k), they are
//!
//!     tw[i] = x(base_b · ω^(bitrev_k(i))),  base_b = h_ℓ · Π_(bit i of b) G^(2^(29−k−i)),
//!     ω = G^(2^(30−k)) (order 2^(k+1)),
//!
//! a product of at most ℓ − 1 − k constant points instead of an exponentiation; the later
//! folds of the group take π(x) = 2x² − 1 of every other twiddle (`residue_double_x`). Each
//! coordinate is a product of residues with one division (bounded_int.cairo).

use crate::bounded_int::{Residue, product_x, product_y};
use crate::fields::m31::{M31, M31Trait};
use super::queries::pow2;

#[derive(Copy, Drop, Debug, PartialEq)]
pub struct CirclePoint {
    pub x: M31,
    pub y: M31,
}

/// G^(2^m) for m = 0 … 30, G = (2, 1268011823) of order 2^31 (STWO's M31_CIRCLE_GEN).
const GEN_POW2: [(u32, u32); 31] = [
    (2, 1268011823), (7, 777079998), (97, 141701737), (18817, 1720333214),
    (708158977, 683185920), (334835419, 1444967316), (2042371533, 1362265296),
    (212706801, 1223819887), (421007138, 256177860), (6346213, 905523693),
    (1022251061, 788094511), (1633461177, 574296567), (595037635, 2111542451),
    (1799120754, 343598868), (438833264, 1327019128), (1389168750, 838891026),
    (1543902459, 1632329423), (1330239767, 1446369578), (1420207432, 2023238517),
    (2015554631, 1088093947), (996212859, 1140996376), (1434706457, 1835793811),
    (13610297, 1064696601), (785043271, 1260750973), (838195206, 1774253895),
    (579625837, 1690787918), (1179735656, 1241207368), (590768354, 978592373),
    (32768, 2147450879), (0, 2147483646), (2147483646, 0),
];

/// G^(2^m), m < 31.
pub fn gen_pow2(m: u32) -> CirclePoint {
    let (x, y) = *GEN_POW2.span()[m];
    CirclePoint { x: M31Trait::new(x), y: M31Trait::new(y) }
}

/// (x1x2 − y1y2, x1y2 + x2y1): the circle group law, one division per coordinate.
pub fn circle_mul(a: CirclePoint, b: CirclePoint) -> CirclePoint {
    let (ax, ay, bx, by) = (a.x.residue(), a.y.residue(), b.x.residue(), b.y.residue());
    CirclePoint {
        x: M31Trait::from_residue(product_x(ax, ay, bx, by)),
        y: M31Trait::from_residue(product_y(ax, ay, bx, by)),
    }
}

/// The first-fold twiddles of aligned blocks of 2^k positions in the domain of log size ℓ
/// (ℓ ≤ 29): h_ℓ, the products of the factors G^(2^(29−k−i)) of the bits i of a block index,
/// four bits at a time (`windows[w][v]` for the bits 4w … 4w + 3 of value v), and ω^m,
/// m < 2^k. Built once per fold group (15 circle products per window), then `at` costs at most
/// one product per nonzero nibble of the block index and one x per twiddle.
#[derive(Drop)]
pub struct BlockTwiddles {
    start: CirclePoint,
    windows: Span<Span<CirclePoint>>,
    /// ω^(bitrev_k(i)) for i < 2^k: the factor of twiddle i.
    omegas: Span<CirclePoint>,
}

const NIBBLE: NonZero<u32> = 16;

#[generate_trait]
pub impl BlockTwiddlesImpl of BlockTwiddlesTrait {
    fn new(log_size: u32, k: u32) -> BlockTwiddles {
        let identity = CirclePoint { x: M31Trait::one(), y: M31Trait::zero() };
        let bits = log_size - 1 - k;
        let mut windows = array![];
        let mut bit = 0;
        while bit < bits {
            // entries[v] = entries[v − 2^j] · factor of bit (4w + j), j the top bit of v
            let mut entries = array![identity];
            for j in 0..core::cmp::min(4, bits - bit) {
                let factor = gen_pow2(29 - k - bit - j);
                for v in 0..pow2(j) {
                    entries.append(circle_mul(*entries[v], factor));
                }
            }
            windows.append(entries.span());
            bit += 4;
        }
        let omega = gen_pow2(30 - k);
        let mut powers = array![];
        let mut point = identity;
        for _ in 0..pow2(k) {
            powers.append(point);
            point = circle_mul(point, omega);
        }
        let mut omegas = array![];
        for i in 0..powers.len() {
            omegas.append(*powers[bit_reverse(i, k)]);
        }
        BlockTwiddles {
            start: gen_pow2(29 - log_size), windows: windows.span(), omegas: omegas.span(),
        }
    }

    /// tw[b·2^k + i] = x(base_b · ω^(bitrev_k(i))) for i < 2^k.
    fn at(self: @BlockTwiddles, block: u32) -> Span<Residue> {
        let mut base = *self.start;
        let mut rest = block;
        let mut windows = *self.windows;
        while rest != 0 {
            let (higher, nibble) = DivRem::div_rem(rest, NIBBLE);
            let window = *windows.pop_front().unwrap();
            if nibble != 0 {
                base = circle_mul(base, *window[nibble]);
            }
            rest = higher;
        }
        let (bx, by) = (base.x.residue(), base.y.residue());
        let mut out = array![];
        for omega in *self.omegas {
            out.append(product_x(bx, by, omega.x.residue(), omega.y.residue()));
        }
        out.span()
    }
}

/// The low `bits` bits of `x` reversed.
fn bit_reverse(x: u32, bits: u32) -> u32 {
    let mut rest = x;
    let mut out = 0;
    for _ in 0..bits {
        let (higher, low) = DivRem::div_rem(rest, 2);
        out = out * 2 + low;
        rest = higher;
    }
    out
}
