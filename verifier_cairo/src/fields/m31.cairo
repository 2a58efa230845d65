//! M31 = Z/(2^31 - 1), the base field (mirror of prover/fields/m31.py).
//!
//! Values are canonical: the inner value is a bounded integer in [0, p) (`Residue`), so a sum
//! or difference costs one range check and a product three (bounded_int.cairo), and converting
//! to a u32 or a felt252 is free. Products are formed in felt252, where they cannot wrap
//! (p^2 < 2^62), so a caller summing many products reduces once, with `reduce`, instead of
//! after every product. The `qm31_*`/`m31_*` libfuncs are not allowed on Starknet, hence plain
//! integer arithmetic.

use crate::bounded_int::{
    Residue, felt252_mod_p, residue_add, residue_mul, residue_of, residue_one, residue_sub,
    residue_zero, u128_mod_p, upcast,
};

pub const P: u32 = 0x7fffffff;
/// p as a felt252, for lazy felt arithmetic.
pub const P_FELT: felt252 = 0x7fffffff;

#[derive(Copy, Drop)]
pub struct M31 {
    inner: Residue,
}

#[generate_trait]
pub impl M31Impl of M31Trait {
    /// A canonical value; panics when `x >= p`. Not inlined: the generated test vectors call it
    /// tens of thousands of times, and inlined copies of its branch take gigabytes to compile.
    #[inline(never)]
    fn new(x: u32) -> M31 {
        match residue_of(x) {
            Some(inner) => M31 { inner },
            None => core::panic_with_felt252('m31.not_canonical'),
        }
    }

    /// A residue the caller has in hand (calldata's limbs).
    fn from_residue(inner: Residue) -> M31 {
        M31 { inner }
    }

    fn residue(self: M31) -> Residue {
        self.inner
    }

    /// `x mod p` for the integer in [0, P) that a felt252 holds (a lazy sum of products, which
    /// its caller keeps non-negative and below P so that it never wraps): four range checks
    /// below 2^128, six above (`felt252_mod_p`).
    fn reduce(x: felt252) -> M31 {
        M31 { inner: felt252_mod_p(x) }
    }

    /// `reduce` as a felt252, for a caller that goes on computing in felt252 (the PCS's fold
    /// path): the remainder widens for free.
    fn reduce_felt(x: felt252) -> felt252 {
        Self::reduce(x).into()
    }

    /// `x mod p` for any u128.
    fn reduce_u128(x: u128) -> M31 {
        M31 { inner: u128_mod_p(x) }
    }

    fn zero() -> M31 {
        M31 { inner: residue_zero() }
    }

    fn one() -> M31 {
        M31 { inner: residue_one() }
    }

    /// `x^-1 = x^(p-2)` (Fermat); panics on zero, like the Python mirror.
    fn inverse(self: M31) -> M31 {
        assert(self != Self::zero(), 'm31.inverse_of_zero');
        let mut result = Self::one();
        let mut base = self;
        let mut e = P - 2;
        while e != 0 {
            if e % 2 == 1 {
                result = result * base;
            }
            base = base * base;
            e /= 2;
        }
        result
    }
}

pub impl M31IntoU32 of Into<M31, u32> {
    #[inline(always)]
    fn into(self: M31) -> u32 {
        upcast(self.inner)
    }
}

pub impl M31IntoFelt252 of Into<M31, felt252> {
    #[inline(always)]
    fn into(self: M31) -> felt252 {
        upcast(self.inner)
    }
}

pub impl M31PartialEq of PartialEq<M31> {
    fn eq(lhs: @M31, rhs: @M31) -> bool {
        let (l, r): (felt252, felt252) = ((*lhs).into(), (*rhs).into());
        l == r
    }
}

pub impl M31Debug of core::fmt::Debug<M31> {
    fn fmt(self: @M31, ref f: core::fmt::Formatter) -> Result<(), core::fmt::Error> {
        let value: u32 = (*self).into();
        core::fmt::Debug::fmt(@value, ref f)
    }
}

pub impl M31Add of Add<M31> {
    fn add(lhs: M31, rhs: M31) -> M31 {
        M31 { inner: residue_add(lhs.inner, rhs.inner) }
    }
}

pub impl M31Sub of Sub<M31> {
    fn sub(lhs: M31, rhs: M31) -> M31 {
        M31 { inner: residue_sub(lhs.inner, rhs.inner) }
    }
}

pub impl M31Neg of Neg<M31> {
    fn neg(a: M31) -> M31 {
        M31Trait::zero() - a
    }
}

pub impl M31Mul of Mul<M31> {
    fn mul(lhs: M31, rhs: M31) -> M31 {
        M31 { inner: residue_mul(lhs.inner, rhs.inner) }
    }
}
