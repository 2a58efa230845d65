//! CM31 = M31[i] / (i^2 + 1); (a, b) means a + b*i (mirror of prover/fields/cm31.py).
//! Only QM31's inverse needs it: every other QM31 formula is expanded over M31 coordinates.

use super::m31::{M31, M31Trait};

/// p^2: added before reducing a difference of two products so it stays non-negative.
pub const P_SQUARED: felt252 = 0x7fffffff * 0x7fffffff;

#[derive(Copy, Drop, PartialEq, Debug)]
pub struct CM31 {
    pub a: M31,
    pub b: M31,
}

#[generate_trait]
pub impl CM31Impl of CM31Trait {
    fn new(a: u32, b: u32) -> CM31 {
        CM31 { a: M31Trait::new(a), b: M31Trait::new(b) }
    }

    /// (a + bi)^-1 = (a - bi) / (a^2 + b^2).
    fn inverse(self: CM31) -> CM31 {
        let a: felt252 = self.a.into();
        let b: felt252 = self.b.into();
        let norm_inv = M31Trait::reduce(a * a + b * b).inverse();
        CM31 { a: self.a * norm_inv, b: -self.b * norm_inv }
    }
}

pub impl CM31Add of Add<CM31> {
    fn add(lhs: CM31, rhs: CM31) -> CM31 {
        CM31 { a: lhs.a + rhs.a, b: lhs.b + rhs.b }
    }
}

pub impl CM31Sub of Sub<CM31> {
    fn sub(lhs: CM31, rhs: CM31) -> CM31 {
        CM31 { a: lhs.a - rhs.a, b: lhs.b - rhs.b }
    }
}

pub impl CM31Neg of Neg<CM31> {
    fn neg(a: CM31) -> CM31 {
        CM31 { a: -a.a, b: -a.b }
    }
}

pub impl CM31Mul of Mul<CM31> {
    /// (a + bi)(c + di) = (ac - bd) + (ad + bc)i, each coordinate reduced once.
    fn mul(lhs: CM31, rhs: CM31) -> CM31 {
        let (a, b): (felt252, felt252) = (lhs.a.into(), lhs.b.into());
        let (c, d): (felt252, felt252) = (rhs.a.into(), rhs.b.into());
        CM31 { a: M31Trait::reduce(a * c - b * d + P_SQUARED), b: M31Trait::reduce(a * d + b * c) }
    }
}
