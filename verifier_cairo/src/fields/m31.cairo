//! M31 = Z/(2^31 - 1), the base field (mirror of prover/fields/m31.py).
//!
//! Values are canonical `u32`s in [0, p). Products are formed in felt252, where they cannot
//! wrap (p^2 < 2^62), so a caller summing many products reduces once, with `reduce`, instead of
//! after every product. The `qm31_*`/`m31_*` libfuncs are not allowed on Starknet, hence plain
//! integer arithmetic.

use crate::bounded_int::{felt252_mod_p, u128_mod_p};

pub const P: u32 = 0x7fffffff;

#[derive(Copy, Drop, PartialEq, Debug)]
pub struct M31 {
    inner: u32,
}

#[generate_trait]
pub impl M31Impl of M31Trait {
    /// A canonical value; panics when `x >= p`.
    fn new(x: u32) -> M31 {
        assert(x < P, 'm31.not_canonical');
        M31 { inner: x }
    }

    /// `x mod p` for the integer in [0, P) that a felt252 holds (a lazy sum of products, which
    /// its caller keeps non-negative and below P so that it never wraps): four range checks
    /// below 2^128, six above (`felt252_mod_p`).
    fn reduce(x: felt252) -> M31 {
        M31 { inner: felt252_mod_p(x) }
    }

    /// `reduce` as a felt252, for a caller that goes on computing in felt252 (the PCS's fold
    /// path): the u32 remainder widens for free.
    fn reduce_felt(x: felt252) -> felt252 {
        Self::reduce(x).into()
    }

    /// `x mod p` for any u128.
    fn reduce_u128(x: u128) -> M31 {
        M31 { inner: u128_mod_p(x) }
    }

    fn zero() -> M31 {
        M31 { inner: 0 }
    }

    fn one() -> M31 {
        M31 { inner: 1 }
    }

    /// `x^-1 = x^(p-2)` (Fermat); panics on zero, like the Python mirror.
    fn inverse(self: M31) -> M31 {
        assert(self.inner != 0, 'm31.inverse_of_zero');
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
        self.inner
    }
}

pub impl M31IntoFelt252 of Into<M31, felt252> {
    #[inline(always)]
    fn into(self: M31) -> felt252 {
        self.inner.into()
    }
}

pub impl M31Add of Add<M31> {
    fn add(lhs: M31, rhs: M31) -> M31 {
        // Both operands are < p, so the sum is < 2p < 2^32: one conditional subtraction.
        let sum = lhs.inner + rhs.inner;
        M31 { inner: if sum >= P {
            sum - P
        } else {
            sum
        } }
    }
}

pub impl M31Sub of Sub<M31> {
    fn sub(lhs: M31, rhs: M31) -> M31 {
        M31 { inner: if lhs.inner >= rhs.inner {
            lhs.inner - rhs.inner
        } else {
            lhs.inner + (P - rhs.inner)
        } }
    }
}

pub impl M31Neg of Neg<M31> {
    fn neg(a: M31) -> M31 {
        M31Trait::zero() - a
    }
}

pub impl M31Mul of Mul<M31> {
    fn mul(lhs: M31, rhs: M31) -> M31 {
        let lhs: felt252 = lhs.into();
        M31Trait::reduce(lhs * rhs.into())
    }
}
