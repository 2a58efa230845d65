//! Sierra's bounded integers, for divisions by a constant that cost fewer steps and range
//! checks than `u128` division: the quotient's and the remainder's types carry their ranges,
//! so a remainder below 2^32 is a `u32` by `upcast`, with no range check of its own.
//!
//! The corelib (2.16) keeps its `BoundedInt` type crate-private, so the type and the libfuncs
//! (all on Starknet's audited list: `bounded_int_div_rem`, `bounded_int_wrap_non_zero`,
//! `downcast`, `upcast`) are declared here. A `DivRemHelper` names the exact result ranges
//! of one division, as the libfunc computes them from its operands' ranges; a mismatch is a
//! compile error, never a runtime one.

use core::RangeCheck;

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

pub trait DivRemHelper<Lhs, Rhs> {
    type DivT;
    type RemT;
}
extern fn bounded_int_div_rem<Lhs, Rhs, impl H: DivRemHelper<Lhs, Rhs>>(
    lhs: Lhs, rhs: NonZero<Rhs>,
) -> (H::DivT, H::RemT) implicits(RangeCheck) nopanic;

/// 2^32, the only value of its type.
type Shift32 = BoundedInt<0x100000000, 0x100000000>;
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
    let shift: NonZero<Shift32> = bounded_int_wrap_non_zero(downcast(0x100000000).unwrap());
    let (x, w0) = bounded_int_div_rem(x, shift);
    let (x, w1) = bounded_int_div_rem(x, shift);
    let (w3, w2) = bounded_int_div_rem(x, shift);
    [upcast(w0), upcast(w1), upcast(w2), upcast(w3)]
}

/// Remainders by a u32 divisor lie in [0, 2^32 − 2] whatever its value.
type U32Remainder = BoundedInt<0, 0xfffffffe>;
type U128Range = BoundedInt<0, 0xffffffffffffffffffffffffffffffff>;
impl U128ByU32 of DivRemHelper<u128, u32> {
    type DivT = U128Range;
    type RemT = U32Remainder;
}

/// x mod d for a nonzero u32 d, as a u32.
pub fn u128_mod_u32(x: u128, d: NonZero<u32>) -> u32 {
    let (_, r) = bounded_int_div_rem(x, d);
    upcast(r)
}
