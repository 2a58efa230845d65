//! Sierra's bounded integers, for divisions by a constant that cost fewer steps and range
//! checks than `u128` division: the quotient's and the remainder's types carry their ranges,
//! so a remainder below 2^32 is a `u32` by `upcast`, with no range check of its own, and sums
//! and products of bounded integers (`bounded_int_add`, `bounded_int_mul`) are felt252
//! operations whose result range the compiler derives: no range check at all.
//!
//! The corelib (2.16) keeps its `BoundedInt` type crate-private, so the type and the libfuncs
//! (all on Starknet's audited list: `bounded_int_add`, `bounded_int_mul`,
//! `bounded_int_div_rem`, `bounded_int_wrap_non_zero`, `downcast`, `upcast`) are declared
//! here. A `DivRemHelper` names the exact result ranges
//! of one division, as the libfunc computes them from its operands' ranges; a mismatch is a
//! compile error, never a runtime one.

use core::RangeCheck;
#[feature("bounded-int-utils")]
use core::internal::bounded_int::UnitInt;

pub extern type BoundedInt<const MIN: felt252, const MAX: felt252>;
impl BoundedIntCopy<const MIN: felt252, const MAX: felt252> of Copy<BoundedInt<MIN, MAX>>;
impl BoundedIntDrop<const MIN: felt252, const MAX: felt252> of Drop<BoundedInt<MIN, MAX>>;

/// Widens to a type whose range holds the argument's (free).
pub extern fn upcast<FromType, ToType>(x: FromType) -> ToType nopanic;
/// Narrows to `ToType`, None when the value is outside its range (one range check).
pub extern fn downcast<FromType, ToType>(
    x: FromType,
) -> Option<ToType> implicits(RangeCheck) nopanic;
extern fn bounded_int_wrap_non_zero<T>(v: T) -> NonZero<T> nopanic;

pub trait AddHelper<Lhs, Rhs> {
    type Result;
}
extern fn bounded_int_add<Lhs, Rhs, impl H: AddHelper<Lhs, Rhs>>(
    lhs: Lhs, rhs: Rhs,
) -> H::Result nopanic;
pub trait MulHelper<Lhs, Rhs> {
    type Result;
}
extern fn bounded_int_mul<Lhs, Rhs, impl H: MulHelper<Lhs, Rhs>>(
    lhs: Lhs, rhs: Rhs,
) -> H::Result nopanic;

pub trait DivRemHelper<Lhs, Rhs> {
    type DivT;
    type RemT;
}
extern fn bounded_int_div_rem<Lhs, Rhs, impl H: DivRemHelper<Lhs, Rhs>>(
    lhs: Lhs, rhs: NonZero<Rhs>,
) -> (H::DivT, H::RemT) implicits(RangeCheck) nopanic;

/// 2^32, the only value of its type (the corelib's public `UnitInt` alias, whose literals are
/// constants: no range check).
type Shift32 = UnitInt<0x100000000>;
type U32Range = BoundedInt<0, 0xffffffff>;
type Below96 = BoundedInt<0, 0xffffffffffffffffffffffff>;
type Below64 = BoundedInt<0, 0xffffffffffffffff>;
impl U128ByShift32 of DivRemHelper<u128, Shift32> {
    type DivT = Below96;
    type RemT = U32Range;
}
impl Below96ByShift32 of DivRemHelper<Below96, Shift32> {
    type DivT = Below64;
    type RemT = U32Range;
}
impl Below64ByShift32 of DivRemHelper<Below64, Shift32> {
    type DivT = U32Range;
    type RemT = U32Range;
}

/// The four u32 words of `x`, least significant first: three divisions by 2^32.
pub fn u32_words(x: u128) -> [u32; 4] {
    let shift: NonZero<Shift32> = 0x100000000;
    let (x, w0) = bounded_int_div_rem(x, shift);
    let (x, w1) = bounded_int_div_rem(x, shift);
    let (w3, w2) = bounded_int_div_rem(x, shift);
    [upcast(w0), upcast(w1), upcast(w2), upcast(w3)]
}

/// M31's modulus p = 2^31 − 1, and 2^128 mod p = 16 (2^31 ≡ 1).
type Modulus = UnitInt<0x7fffffff>;
type Sixteen = UnitInt<16>;
type U128Range = BoundedInt<0, 0xffffffffffffffffffffffffffffffff>;
type HighTimes16 = BoundedInt<0, 0xffffffffffffffffffffffffffffffff0>;
/// 16·h + l for u128s h, l: below 17·2^128, so its quotient by p is below 2^128 (the division
/// takes three range checks).
type Folded = BoundedInt<0, 0x10ffffffffffffffffffffffffffffffef>;
impl HighTimes16Helper of MulHelper<U128Range, Sixteen> {
    type Result = HighTimes16;
}
impl FoldedHelper of AddHelper<HighTimes16, U128Range> {
    type Result = Folded;
}
impl FoldedByModulus of DivRemHelper<Folded, Modulus> {
    type DivT = BoundedInt<0, 0x22000000440000008800000110>;
    type RemT = BoundedInt<0, 0x7ffffffe>;
}

/// The integer in [0, P) a felt252 stands for, mod p, canonical: x = h·2^128 + l ≡ 16·h + l.
/// Four range checks below 2^128 (splitting x takes one), six above.
pub fn felt252_mod_p(x: felt252) -> u32 {
    let x: u256 = x.into();
    let high: U128Range = upcast(x.high);
    let sixteen: Sixteen = 16;
    folded_mod_p(bounded_int_add(bounded_int_mul(high, sixteen), upcast::<_, U128Range>(x.low)))
}

/// x mod p for a u128 (three range checks).
pub fn u128_mod_p(x: u128) -> u32 {
    folded_mod_p(upcast(x))
}

fn folded_mod_p(x: Folded) -> u32 {
    let p: NonZero<Modulus> = 0x7fffffff;
    let (_, r) = bounded_int_div_rem(x, p);
    upcast(r)
}
