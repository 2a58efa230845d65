//! QM31 = CM31[u] / (u^2 - (2 + i)), the secure field every challenge lives in (mirror of
//! prover/fields/qm31.py). (a, b, c, d) means (a + bi) + (c + di)u, STWO's order.
//!
//! Products go through `UnreducedQM31`: coordinates summed in felt252 and reduced mod p only
//! when the value is needed, so a sum of many products costs four reductions in total.

use super::cm31::{CM31, CM31Trait, P_SQUARED};
use crate::bounded_int::{Residue, qm31_product};
use super::m31::{M31, M31Trait, P_FELT};

const SHIFT_31: felt252 = 0x80000000;

#[derive(Copy, Drop, PartialEq, Debug)]
pub struct QM31 {
    pub a: M31,
    pub b: M31,
    pub c: M31,
    pub d: M31,
}

/// A QM31 whose coordinates are non-negative integers not yet reduced mod p. A product from
/// `mul_unreduced` has coordinates below 8p^2 < 2^65, so sums of up to 2^62 of them stay below
/// 2^128, the bound of `M31Trait::reduce`.
#[derive(Copy, Drop)]
pub struct UnreducedQM31 {
    pub(crate) a: felt252,
    pub(crate) b: felt252,
    pub(crate) c: felt252,
    pub(crate) d: felt252,
}

#[generate_trait]
pub impl QM31Impl of QM31Trait {
    fn new(a: u32, b: u32, c: u32, d: u32) -> QM31 {
        QM31 { a: M31Trait::new(a), b: M31Trait::new(b), c: M31Trait::new(c), d: M31Trait::new(d) }
    }

    fn zero() -> QM31 {
        let z = M31Trait::zero();
        QM31 { a: z, b: z, c: z, d: z }
    }

    /// The four coordinates' residues.
    fn residues(self: QM31) -> [Residue; 4] {
        [self.a.residue(), self.b.residue(), self.c.residue(), self.d.residue()]
    }

    fn one() -> QM31 {
        let z = M31Trait::zero();
        QM31 { a: M31Trait::one(), b: z, c: z, d: z }
    }

    /// prefix‖a‖b‖c‖d in 31-bit limbs: STWO's `pack_qm31`, the form `mix_felts` hashes and
    /// the calldata carries (with prefix 1).
    fn pack(self: QM31, prefix: felt252) -> felt252 {
        let mut acc = prefix * SHIFT_31 + self.a.into();
        acc = acc * SHIFT_31 + self.b.into();
        acc = acc * SHIFT_31 + self.c.into();
        acc * SHIFT_31 + self.d.into()
    }

    /// x·self for a base-field x: each coordinate times x.
    fn scale(self: QM31, x: M31) -> QM31 {
        QM31 { a: self.a * x, b: self.b * x, c: self.c * x, d: self.d * x }
    }

    /// (A + Bu)(C + Du) = AC + BD(2+i) + (AD + BC)u, expanded over the M31 coordinates. The
    /// multiples of p^2 keep each coordinate non-negative; each stays below 8p^2.
    fn mul_unreduced(self: QM31, rhs: QM31) -> UnreducedQM31 {
        let (a0, a1, b0, b1): (felt252, felt252, felt252, felt252) = (
            self.a.into(), self.b.into(), self.c.into(), self.d.into(),
        );
        let (c0, c1, d0, d1): (felt252, felt252, felt252, felt252) = (
            rhs.a.into(), rhs.b.into(), rhs.c.into(), rhs.d.into(),
        );
        // BD = bd_re + bd_im i, with bd_re shifted by p^2 into [0, 2p^2).
        let bd_re = b0 * d0 - b1 * d1 + P_SQUARED;
        let bd_im = b0 * d1 + b1 * d0;
        // BD (2 + i) = (2 bd_re - bd_im) + (bd_re + 2 bd_im) i.
        UnreducedQM31 {
            a: a0 * c0 - a1 * c1 + 2 * bd_re - bd_im + 3 * P_SQUARED,
            b: a0 * c1 + a1 * c0 + bd_re + 2 * bd_im,
            c: a0 * d0 - a1 * d1 + b0 * c0 - b1 * c1 + 2 * P_SQUARED,
            d: a0 * d1 + a1 * d0 + b0 * c1 + b1 * c0,
        }
    }

    /// (A + Bu)^-1 = (A - Bu) / (A^2 - (2+i)B^2).
    fn inverse(self: QM31) -> QM31 {
        assert(self != Self::zero(), 'qm31.inverse_of_zero');
        let a = CM31 { a: self.a, b: self.b };
        let b = CM31 { a: self.c, b: self.d };
        let denom_inv = (a * a - mul_by_u_squared(b * b)).inverse();
        let lo = a * denom_inv;
        let hi = -b * denom_inv;
        QM31 { a: lo.a, b: lo.b, c: hi.a, d: hi.b }
    }
}

/// (a + bi)(2 + i) = (2a - b) + (a + 2b)i.
fn mul_by_u_squared(x: CM31) -> CM31 {
    CM31 { a: x.a + x.a - x.b, b: x.a + x.b + x.b }
}

#[generate_trait]
pub impl UnreducedQM31Impl of UnreducedQM31Trait {
    fn zero() -> UnreducedQM31 {
        UnreducedQM31 { a: 0, b: 0, c: 0, d: 0 }
    }

    /// self − b for a canonical b: each coordinate plus p − b's, so it stays non-negative
    /// and nothing is reduced (a QM31 subtraction reduces four times).
    fn sub_reduced(self: UnreducedQM31, b: QM31) -> UnreducedQM31 {
        UnreducedQM31 {
            a: self.a + P_FELT - b.a.into(),
            b: self.b + P_FELT - b.b.into(),
            c: self.c + P_FELT - b.c.into(),
            d: self.d + P_FELT - b.d.into(),
        }
    }

    /// self·r, unreduced, for coordinates of self in [0, bound) and a canonical r: multiples
    /// of bound·p keep every coordinate non-negative, and each stays below 8·bound·p (a
    /// caller's Horner rule reduces once at the end, as long as its bound stays below P).
    fn mul_by(self: UnreducedQM31, bound: felt252, r: QM31) -> UnreducedQM31 {
        let (a0, a1, b0, b1) = (self.a, self.b, self.c, self.d);
        let (c0, c1, d0, d1): (felt252, felt252, felt252, felt252) = (
            r.a.into(), r.b.into(), r.c.into(), r.d.into(),
        );
        let bp = bound * P_FELT;
        // BD = bd_re + bd_im i; BD (2 + i) = (2 bd_re − bd_im) + (bd_re + 2 bd_im) i.
        let bd_re = b0 * d0 - b1 * d1;
        let bd_im = b0 * d1 + b1 * d0;
        UnreducedQM31 {
            a: a0 * c0 - a1 * c1 + 2 * bd_re - bd_im + 5 * bp,
            b: a0 * c1 + a1 * c0 + bd_re + 2 * bd_im + bp,
            c: a0 * d0 - a1 * d1 + b0 * c0 - b1 * c1 + 2 * bp,
            d: a0 * d1 + a1 * d0 + b0 * c1 + b1 * c0,
        }
    }

    fn reduce(self: UnreducedQM31) -> QM31 {
        QM31 {
            a: M31Trait::reduce(self.a),
            b: M31Trait::reduce(self.b),
            c: M31Trait::reduce(self.c),
            d: M31Trait::reduce(self.d),
        }
    }
}

pub impl QM31IntoUnreduced of Into<QM31, UnreducedQM31> {
    #[inline(always)]
    fn into(self: QM31) -> UnreducedQM31 {
        UnreducedQM31 { a: self.a.into(), b: self.b.into(), c: self.c.into(), d: self.d.into() }
    }
}

pub impl UnreducedQM31Add of Add<UnreducedQM31> {
    #[inline(always)]
    fn add(lhs: UnreducedQM31, rhs: UnreducedQM31) -> UnreducedQM31 {
        UnreducedQM31 { a: lhs.a + rhs.a, b: lhs.b + rhs.b, c: lhs.c + rhs.c, d: lhs.d + rhs.d }
    }
}

/// One felt per value, 1‖a‖b‖c‖d as in calldata: a contract session's state carries its
/// challenges this way.
pub impl QM31Serde of Serde<QM31> {
    fn serialize(self: @QM31, ref output: Array<felt252>) {
        output.append((*self).pack(1));
    }

    fn deserialize(ref serialized: Span<felt252>) -> Option<QM31> {
        Some(crate::calldata::unpack_qm31(*serialized.pop_front()?))
    }
}

pub impl QM31Add of Add<QM31> {
    fn add(lhs: QM31, rhs: QM31) -> QM31 {
        QM31 { a: lhs.a + rhs.a, b: lhs.b + rhs.b, c: lhs.c + rhs.c, d: lhs.d + rhs.d }
    }
}

pub impl QM31Sub of Sub<QM31> {
    fn sub(lhs: QM31, rhs: QM31) -> QM31 {
        QM31 { a: lhs.a - rhs.a, b: lhs.b - rhs.b, c: lhs.c - rhs.c, d: lhs.d - rhs.d }
    }
}

pub impl QM31Neg of Neg<QM31> {
    fn neg(a: QM31) -> QM31 {
        QM31 { a: -a.a, b: -a.b, c: -a.c, d: -a.d }
    }
}

pub impl QM31Mul of Mul<QM31> {
    /// `mul_unreduced`'s formula in bounded integers (`qm31_product`): 12 range checks, where
    /// reducing its felt252 coordinates takes 16.
    fn mul(lhs: QM31, rhs: QM31) -> QM31 {
        let [a, b, c, d] = qm31_product(lhs.residues(), rhs.residues());
        QM31 {
            a: M31Trait::from_residue(a),
            b: M31Trait::from_residue(b),
            c: M31Trait::from_residue(c),
            d: M31Trait::from_residue(d),
        }
    }
}
