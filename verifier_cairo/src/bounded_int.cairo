//! Sierra's bounded integers, for divisions by a constant that cost fewer steps and range
//! checks than `u128` division: the quotient's and the remainder's types carry their ranges,
//! so a remainder below 2^32 is a `u32` by `upcast`, with no range check of its own, and sums
//! and products of bounded integers (`bounded_int_add`, `bounded_int_mul`) are felt252
//! operations whose result range the compiler derives: no range check at all.
//!
//! The corelib (2.16) keeps its `BoundedInt` type crate-private, so the type and the libfuncs
//! (all on Starknet's audited list: `bounded_int_add`, `bounded_int_sub`, `bounded_int_mul`,
//! `bounded_int_constrain`, `bounded_int_trim_max`, `bounded_int_div_rem`, `downcast`,
//! `upcast`) are declared here. A `DivRemHelper` names the exact result ranges of one
//! division, as the libfunc computes them from its operands' ranges; a mismatch is a compile
//! error, never a runtime one.

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

pub trait SubHelper<Lhs, Rhs> {
    type Result;
}
extern fn bounded_int_sub<Lhs, Rhs, impl H: SubHelper<Lhs, Rhs>>(
    lhs: Lhs, rhs: Rhs,
) -> H::Result nopanic;
/// Splits a value's range at `BOUNDARY`: [MIN, BOUNDARY) or [BOUNDARY, MAX] (one range check).
pub trait ConstrainHelper<T, const BOUNDARY: felt252> {
    type LowT;
    type HighT;
}
extern fn bounded_int_constrain<T, const BOUNDARY: felt252, impl H: ConstrainHelper<T, BOUNDARY>>(
    value: T,
) -> Result<H::LowT, H::HighT> implicits(RangeCheck) nopanic;

/// A range's top value split off, free of range checks (a test for zero of x − MAX).
pub trait TrimMaxHelper<T> {
    type Target;
}
extern fn bounded_int_trim_max<T, impl H: TrimMaxHelper<T>>(
    value: T,
) -> core::internal::OptionRev<H::Target> nopanic;

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
/// [0, p): a canonical M31 value, the type of `M31`'s inner value.
pub type Residue = BoundedInt<0, 0x7ffffffe>;
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
    type RemT = Residue;
}

/// The integer in [0, P) a felt252 stands for, mod p: x = h·2^128 + l ≡ 16·h + l. Four range
/// checks below 2^128 (splitting x takes one), six above.
#[inline(never)]
pub fn felt252_mod_p(x: felt252) -> Residue {
    let x: u256 = x.into();
    let high: U128Range = upcast(x.high);
    let sixteen: Sixteen = 16;
    let folded = bounded_int_add(bounded_int_mul(high, sixteen), upcast::<_, U128Range>(x.low));
    let (_, r) = bounded_int_div_rem(folded, MODULUS);
    r
}

/// x mod p for a u128 (three range checks).
pub fn u128_mod_p(x: u128) -> Residue {
    let (_, r) = bounded_int_div_rem(upcast::<_, Folded>(x), MODULUS);
    r
}

const MODULUS: NonZero<Modulus> = 0x7fffffff;

/// Residue arithmetic, one range check a sum or difference (a split of its range at p or 0, then
/// p subtracted or added, both range-check free) and three a product (one division).
type Sum = BoundedInt<0, 0xfffffffc>;
type Difference = BoundedInt<-0x7ffffffe, 0x7ffffffe>;
type Negative = BoundedInt<-0x7ffffffe, -1>;
type Product = BoundedInt<0, 0x3ffffffe00000004>;
impl ResidueAdd of AddHelper<Residue, Residue> {
    type Result = Sum;
}
impl ResidueSub of SubHelper<Residue, Residue> {
    type Result = Difference;
}
impl DifferenceAtZero of ConstrainHelper<Difference, 0> {
    type LowT = Negative;
    type HighT = Residue;
}
impl NegativePlusP of AddHelper<Negative, Modulus> {
    type Result = BoundedInt<1, 0x7ffffffe>;
}
impl ResidueMul of MulHelper<Residue, Residue> {
    type Result = Product;
}
impl ProductByModulus of DivRemHelper<Product, Modulus> {
    type DivT = BoundedInt<0, 0x7ffffffd>;
    type RemT = Residue;
}

pub fn residue_add(a: Residue, b: Residue) -> Residue {
    residue_below_two_p(upcast(bounded_int_add(a, b)))
}

pub fn residue_sub(a: Residue, b: Residue) -> Residue {
    match bounded_int_constrain::<_, 0>(bounded_int_sub(a, b)) {
        Ok(negative) => {
            let p: Modulus = 0x7fffffff;
            upcast(bounded_int_add(negative, p))
        },
        Err(non_negative) => non_negative,
    }
}

pub fn residue_mul(a: Residue, b: Residue) -> Residue {
    let (_, r) = bounded_int_div_rem(bounded_int_mul(a, b), MODULUS);
    r
}

/// A u32 below p as a residue (one range check); None from p on.
pub fn residue_of(x: u32) -> Option<Residue> {
    downcast(x)
}

/// 0 and 1 (constants).
pub fn residue_zero() -> Residue {
    let zero: UnitInt<0> = 0;
    upcast(zero)
}

pub fn residue_one() -> Residue {
    let one: UnitInt<1> = 1;
    upcast(one)
}

/// A QM31 packed as `QM31.pack(1)` (1 at 2^124, then a, b, c, d as 31-bit limbs): its four
/// residues, or None when the sentinel is not exactly 1 (`calldata.sentinel`), and then
/// whether each limb is below p (`calldata.limb`). felt − 2^124 below 2^124 is the sentinel's
/// check (two range checks), three divisions split the rest (three each), and a limb below
/// 2^31 other than p is a residue by `bounded_int_trim_max` (no range check): 11 range checks.
#[inline(never)]
pub fn unpack_qm31_limbs(felt: felt252) -> Option<[Option<Residue>; 4]> {
    let rest: u128 = (felt - 0x10000000000000000000000000000000).try_into()?;
    let rest: Below124 = downcast(rest)?;
    let (a, rest) = bounded_int_div_rem(rest, SHIFT_93);
    let (b, rest) = bounded_int_div_rem(rest, SHIFT_62);
    let (c, d) = bounded_int_div_rem(rest, SHIFT_31);
    Some([limb(a), limb(b), limb(c), limb(d)])
}

type Below124 = BoundedInt<0, 0xfffffffffffffffffffffffffffffff>;
type Below93 = BoundedInt<0, 0x1fffffffffffffffffffffff>;
type Below62 = BoundedInt<0, 0x3fffffffffffffff>;
pub type Limb = BoundedInt<0, 0x7fffffff>;
type Shift93 = UnitInt<0x200000000000000000000000>;
type Shift62 = UnitInt<0x4000000000000000>;
type Shift31 = UnitInt<0x80000000>;
const SHIFT_93: NonZero<Shift93> = 0x200000000000000000000000;
const SHIFT_62: NonZero<Shift62> = 0x4000000000000000;
const SHIFT_31: NonZero<Shift31> = 0x80000000;
impl Below124By93 of DivRemHelper<Below124, Shift93> {
    type DivT = Limb;
    type RemT = Below93;
}
impl Below93By62 of DivRemHelper<Below93, Shift62> {
    type DivT = Limb;
    type RemT = Below62;
}
impl Below62By31 of DivRemHelper<Below62, Shift31> {
    type DivT = Limb;
    type RemT = Limb;
}

impl LimbTrim of TrimMaxHelper<Limb> {
    type Target = Residue;
}

/// A 31-bit limb as a residue unless it is p (its range's top, trimmed free of range checks).
fn limb(x: Limb) -> Option<Residue> {
    match bounded_int_trim_max(x) {
        core::internal::OptionRev::Some(r) => Some(r),
        core::internal::OptionRev::None => None,
    }
}

/// `x = top·2^248 + l0·2^217 + l1·2^186 + … + l7`: `top` and the limbs big-endian, typed below
/// 2^31. felt252 → (high, low) u128 halves puts the boundary inside l3 (27 bits in `high`, 4 in
/// `low`), so l3 is rebuilt from its two parts (range-check free); eight divisions, 27 range
/// checks with the split.
#[inline(never)]
pub fn felt252_limbs(x: felt252) -> (BoundedInt<0, 0xff>, [Limb; 8]) {
    let x: u256 = x.into();
    // low = l3_lo·2^124 + l4·2^93 + l5·2^62 + l6·2^31 + l7
    let (l345, l67) = bounded_int_div_rem(x.low, SHIFT_62);
    let (l3_lo, l45) = bounded_int_div_rem(l345, SHIFT_62);
    let (l4, l5) = bounded_int_div_rem(l45, SHIFT_31);
    let (l6, l7) = bounded_int_div_rem(l67, SHIFT_31);
    // high = top·2^120 + l0·2^89 + l1·2^58 + l2·2^27 + l3_hi
    let (top, high) = bounded_int_div_rem(x.high, SHIFT_120);
    let (l01, l23) = bounded_int_div_rem(high, SHIFT_58);
    let (l0, l1) = bounded_int_div_rem(l01, SHIFT_31);
    let (l2, l3_hi) = bounded_int_div_rem(l23, SHIFT_27);
    let sixteen: Sixteen = 16;
    let l3: Limb = bounded_int_add(bounded_int_mul(l3_hi, sixteen), l3_lo);
    (top, [l0, l1, l2, l3, l4, l5, l6, l7])
}

/// A limb mod p: p itself is 0 (range-check free).
pub fn limb_mod_p(x: Limb) -> Residue {
    match limb(x) {
        Some(r) => r,
        None => residue_zero(),
    }
}

type Below66 = BoundedInt<0, 0x3ffffffffffffffff>;
type Below120 = BoundedInt<0, 0xffffffffffffffffffffffffffffff>;
type Below58 = BoundedInt<0, 0x3ffffffffffffff>;
type Below27 = BoundedInt<0, 0x7ffffff>;
type Below4 = BoundedInt<0, 0xf>;
type Shift120 = UnitInt<0x1000000000000000000000000000000>;
type Shift58 = UnitInt<0x400000000000000>;
type Shift27 = UnitInt<0x8000000>;
const SHIFT_120: NonZero<Shift120> = 0x1000000000000000000000000000000;
const SHIFT_58: NonZero<Shift58> = 0x400000000000000;
const SHIFT_27: NonZero<Shift27> = 0x8000000;
impl U128By62 of DivRemHelper<u128, Shift62> {
    type DivT = Below66;
    type RemT = Below62;
}
impl Below66By62 of DivRemHelper<Below66, Shift62> {
    type DivT = Below4;
    type RemT = Below62;
}
impl U128By120 of DivRemHelper<u128, Shift120> {
    type DivT = BoundedInt<0, 0xff>;
    type RemT = Below120;
}
impl Below120By58 of DivRemHelper<Below120, Shift58> {
    type DivT = Below62;
    type RemT = Below58;
}
impl Below58By27 of DivRemHelper<Below58, Shift27> {
    type DivT = Limb;
    type RemT = Below27;
}
impl Below27Times16 of MulHelper<Below27, Sixteen> {
    type Result = BoundedInt<0, 0x7ffffff0>;
}
impl L3Helper of AddHelper<BoundedInt<0, 0x7ffffff0>, Below4> {
    type Result = Limb;
}

/// A QM31 product's coordinates in bounded integers, each a signed sum of products of residues
/// plus a multiple of p² that makes it non-negative, divided by p once: three range checks a
/// coordinate, where a felt252 sum reduced by `felt252_mod_p` takes four (the split of the
/// felt). The terms are `QM31Trait::mul_unreduced`'s; with M = (p − 1)²:
/// a = a0c0 − a1c1 + 2·bd_re − bd_im ∈ [−5M, 3M] (+ 5p²), b = a0c1 + a1c0 + bd_re + 2·bd_im
/// ∈ [−M, 7M] (+ p²), c = a0d0 − a1d1 + b0c0 − b1c1 ∈ [−2M, 2M] (+ 2p²), d ∈ [0, 4M].
type QS1 = BoundedInt<-0x3ffffffe00000004, 0x3ffffffe00000004>;
type QA2 = BoundedInt<0x0, 0x7ffffffc00000008>;
type QS2 = BoundedInt<-0x7ffffffc00000008, 0x7ffffffc00000008>;
type QS3 = BoundedInt<-0xbffffffa0000000c, 0xbffffffa0000000c>;
type QCA = BoundedInt<-0x13ffffff600000014, 0xbffffffa0000000c>;
type QCA1 = BoundedInt<0x4fffffff1, 0x1fffffff500000011>;
type QT3 = BoundedInt<-0x3ffffffe00000004, 0xbffffffa0000000c>;
type QA4 = BoundedInt<0x0, 0xfffffff800000010>;
type QCB = BoundedInt<-0x3ffffffe00000004, 0x1bffffff20000001c>;
type QCB1 = BoundedInt<0xfffffffd, 0x1fffffff10000001d>;
type QCC1 = BoundedInt<0x1fffffffa, 0xfffffffa0000000a>;
type FiveP2 = UnitInt<0x13ffffffb00000005>;
type OneP2 = UnitInt<0x3fffffff00000001>;
type TwoP2 = UnitInt<0x7ffffffe00000002>;
impl QProductSub of SubHelper<Product, Product> {
    type Result = QS1;
}
impl QProductAdd of AddHelper<Product, Product> {
    type Result = QA2;
}
impl QS1Add of AddHelper<QS1, QS1> {
    type Result = QS2;
}
impl QS1S2Add of AddHelper<QS1, QS2> {
    type Result = QS3;
}
impl QS3A2Sub of SubHelper<QS3, QA2> {
    type Result = QCA;
}
impl QCAOffset of AddHelper<QCA, FiveP2> {
    type Result = QCA1;
}
impl QA2S1Add of AddHelper<QA2, QS1> {
    type Result = QT3;
}
impl QA2Add of AddHelper<QA2, QA2> {
    type Result = QA4;
}
impl QT3A4Add of AddHelper<QT3, QA4> {
    type Result = QCB;
}
impl QCBOffset of AddHelper<QCB, OneP2> {
    type Result = QCB1;
}
impl QS2Offset of AddHelper<QS2, TwoP2> {
    type Result = QCC1;
}
impl QCA1ByModulus of DivRemHelper<QCA1, Modulus> {
    type DivT = BoundedInt<0x9, 0x3fffffff2>;
    type RemT = Residue;
}
impl QCB1ByModulus of DivRemHelper<QCB1, Modulus> {
    type DivT = BoundedInt<0x1, 0x3ffffffea>;
    type RemT = Residue;
}
impl QCC1ByModulus of DivRemHelper<QCC1, Modulus> {
    type DivT = BoundedInt<0x3, 0x1fffffff8>;
    type RemT = Residue;
}
impl QA4ByModulus of DivRemHelper<QA4, Modulus> {
    type DivT = BoundedInt<0x0, 0x1fffffff4>;
    type RemT = Residue;
}

/// (A + Bu)(C + Du) = AC + BD(2 + i) + (AD + BC)u over residues, A = a0 + a1 i, B = b0 + b1 i,
/// C = c0 + c1 i, D = d0 + d1 i: the four coordinates, canonical.
#[inline(never)]
pub fn qm31_product(lhs: [Residue; 4], rhs: [Residue; 4]) -> [Residue; 4] {
    let [a0, a1, b0, b1] = lhs;
    let [c0, c1, d0, d1] = rhs;
    let bd_re: QS1 = bounded_int_sub(bounded_int_mul(b0, d0), bounded_int_mul(b1, d1));
    let bd_im: QA2 = bounded_int_add(bounded_int_mul(b0, d1), bounded_int_mul(b1, d0));
    let ac_re: QS1 = bounded_int_sub(bounded_int_mul(a0, c0), bounded_int_mul(a1, c1));
    let ac_im: QA2 = bounded_int_add(bounded_int_mul(a0, c1), bounded_int_mul(a1, c0));
    let ad_re: QS1 = bounded_int_sub(bounded_int_mul(a0, d0), bounded_int_mul(a1, d1));
    let bc_re: QS1 = bounded_int_sub(bounded_int_mul(b0, c0), bounded_int_mul(b1, c1));
    let ad_im: QA2 = bounded_int_add(bounded_int_mul(a0, d1), bounded_int_mul(a1, d0));
    let bc_im: QA2 = bounded_int_add(bounded_int_mul(b0, c1), bounded_int_mul(b1, c0));
    let five_p2: FiveP2 = 0x13ffffffb00000005;
    let one_p2: OneP2 = 0x3fffffff00000001;
    let two_p2: TwoP2 = 0x7ffffffe00000002;
    let a: QCA = bounded_int_sub(bounded_int_add(ac_re, bounded_int_add(bd_re, bd_re)), bd_im);
    let b: QCB = bounded_int_add(bounded_int_add(ac_im, bd_re), bounded_int_add(bd_im, bd_im));
    let c: QS2 = bounded_int_add(ad_re, bc_re);
    let d: QA4 = bounded_int_add(ad_im, bc_im);
    let (_, a) = bounded_int_div_rem(bounded_int_add(a, five_p2), MODULUS);
    let (_, b) = bounded_int_div_rem(bounded_int_add(b, one_p2), MODULUS);
    let (_, c) = bounded_int_div_rem(bounded_int_add(c, two_p2), MODULUS);
    let (_, d) = bounded_int_div_rem(d, MODULUS);
    [a, b, c, d]
}

/// The fold path's twiddle arithmetic (pcs/domain.cairo, pcs/code.cairo's `batch_inverse`) on
/// residues: each result is one division (three range checks), where reducing the same felt252
/// takes four, and its operands' ranges are the compiler's to check. r = p − 1 below.
///
/// 2x of a residue x: a fold's denominator before inversion (range-check free).
pub type Double = Sum;
/// ≤ 2r² (`qm31_product`'s QA2): y(a·b), and a residue times a `Double`.
type TwoSquares = QA2;
/// p·r, the multiple of p that makes x(a·b) = ax·bx − ay·by non-negative.
type PTimesR = UnitInt<0x3ffffffe80000002>;
type Two = UnitInt<2>;
type R = UnitInt<0x7ffffffe>;
/// [r, 2r² + r]: 2x² + r, and x(a·b) + p·r.
type DoubledSquare = BoundedInt<0x7ffffffe, 0x7ffffffc80000006>;
/// ≤ 4r³, ≤ 4r⁴, ≤ 8r⁴ (below 2^127): the products of `batch_inverse`'s chunks of three.
type FourCubes = BoundedInt<0, 0x7ffffffa00000017ffffffe0>;
type FourFourths = BoundedInt<0, 0x3ffffffc00000017ffffffc000000040>;
type EightFourths = BoundedInt<0, 0x7ffffff80000002fffffff8000000080>;
impl SquareDifferenceShifted of AddHelper<QS1, PTimesR> {
    type Result = DoubledSquare;
}
impl SquareTimesTwo of MulHelper<Product, Two> {
    type Result = TwoSquares;
}
impl TwoSquaresPlusR of AddHelper<TwoSquares, R> {
    type Result = DoubledSquare;
}
impl ResidueTimesDouble of MulHelper<Residue, Double> {
    type Result = TwoSquares;
}
impl TwoSquaresTimesDouble of MulHelper<TwoSquares, Double> {
    type Result = FourCubes;
}
impl FourCubesTimesDouble of MulHelper<FourCubes, Double> {
    type Result = EightFourths;
}
impl ResidueTimesFourCubes of MulHelper<Residue, FourCubes> {
    type Result = FourFourths;
}
impl TwoSquaresTimesTwoSquares of MulHelper<TwoSquares, TwoSquares> {
    type Result = FourFourths;
}
impl TwoSquaresByModulus of DivRemHelper<TwoSquares, Modulus> {
    type DivT = BoundedInt<0, 0xfffffffa>;
    type RemT = Residue;
}
impl DoubledSquareByModulus of DivRemHelper<DoubledSquare, Modulus> {
    type DivT = BoundedInt<0, 0xfffffffb>;
    type RemT = Residue;
}
impl FourFourthsByModulus of DivRemHelper<FourFourths, Modulus> {
    type DivT = BoundedInt<0, 0x7ffffff900000021ffffffc4>;
    type RemT = Residue;
}
impl EightFourthsByModulus of DivRemHelper<EightFourths, Modulus> {
    type DivT = BoundedInt<0, 0xfffffff200000043ffffff88>;
    type RemT = Residue;
}

pub fn residue_double(x: Residue) -> Double {
    bounded_int_add(x, x)
}

/// ax·bx − ay·by: the x of the product of the circle points (ax, ay), (bx, by).
pub fn product_x(ax: Residue, ay: Residue, bx: Residue, by: Residue) -> Residue {
    let difference = bounded_int_sub(bounded_int_mul(ax, bx), bounded_int_mul(ay, by));
    let p_times_r: PTimesR = 0x3ffffffe80000002;
    let (_, x) = bounded_int_div_rem(bounded_int_add(difference, p_times_r), MODULUS);
    x
}

/// ax·by + ay·bx: the y of the product.
pub fn product_y(ax: Residue, ay: Residue, bx: Residue, by: Residue) -> Residue {
    let sum = bounded_int_add(bounded_int_mul(ax, by), bounded_int_mul(ay, bx));
    let (_, y) = bounded_int_div_rem(sum, MODULUS);
    y
}

/// π(x) = 2x² − 1, as 2x² + r.
pub fn residue_double_x(x: Residue) -> Residue {
    let two: Two = 2;
    let r: R = 0x7ffffffe;
    let (_, y) = bounded_int_div_rem(
        bounded_int_add(bounded_int_mul(bounded_int_mul(x, x), two), r), MODULUS,
    );
    y
}

/// The running products of one chunk [a, b, c] of `batch_inverse` from `acc` (the product of
/// every x before the chunk): acc·a and acc·a·b unreduced, and acc·a·b·c reduced.
pub fn chunk_products(
    acc: Residue, a: Double, b: Double, c: Double,
) -> (TwoSquares, FourCubes, Residue) {
    let after_a = bounded_int_mul(acc, a);
    let after_b = bounded_int_mul(after_a, b);
    let (_, next) = bounded_int_div_rem(bounded_int_mul(after_b, c), MODULUS);
    (after_a, after_b, next)
}

/// The inverses of one chunk [a, b, c], from `inv` = (acc·a·b·c)^-1 and the chunk's running
/// products (`chunk_products`): [a^-1, b^-1, c^-1] and acc^-1. Every product of two reduced
/// factors and two xs is below 4r⁴, the last one below 8r⁴ < 2^127.
pub fn chunk_inverses(
    inv: Residue, acc: Residue, after_a: TwoSquares, after_b: FourCubes, a: Double, b: Double,
    c: Double,
) -> ([Residue; 3], Residue) {
    let (_, inv_c) = bounded_int_div_rem(bounded_int_mul(inv, after_b), MODULUS);
    let times_c = bounded_int_mul(inv, c);
    let (_, inv_b) = bounded_int_div_rem(bounded_int_mul(times_c, after_a), MODULUS);
    let times_bc = bounded_int_mul(times_c, b);
    let (_, inv_a) = bounded_int_div_rem(bounded_int_mul(acc, times_bc), MODULUS);
    let (_, inv_acc) = bounded_int_div_rem(bounded_int_mul(times_bc, a), MODULUS);
    ([inv_a, inv_b, inv_c], inv_acc)
}

/// A Blake2s channel's draw word as it is read (docs/channels.md): w < 2p is w below the two
/// largest u32 values, which two `bounded_int_trim_max` take off (no range check), and the
/// word's residue is one split at p (`residue_below_two_p`, as a sum's): ≈ 5 range checks a
/// QM31 drawn (cairo-test), against ≈ 29 with u32 comparisons and subtractions.
type Word = BoundedInt<0, 0xffffffff>;
type WordBelowMax = BoundedInt<0, 0xfffffffe>;
pub type BelowTwoP = BoundedInt<0, 0xfffffffd>;
type TwoPHigh = BoundedInt<0x7fffffff, 0xfffffffd>;
impl WordTrim of TrimMaxHelper<Word> {
    type Target = WordBelowMax;
}
impl WordBelowMaxTrim of TrimMaxHelper<WordBelowMax> {
    type Target = BelowTwoP;
}
impl BelowTwoPAtP of ConstrainHelper<BelowTwoP, 0x7fffffff> {
    type LowT = Residue;
    type HighT = TwoPHigh;
}
impl TwoPHighLessP of SubHelper<TwoPHigh, Modulus> {
    type Result = Residue;
}

/// `w` if below 2p.
pub fn below_two_p(w: u32) -> Option<BelowTwoP> {
    let w: Word = upcast(w);
    match bounded_int_trim_max(w) {
        core::internal::OptionRev::Some(w) => match bounded_int_trim_max(w) {
            core::internal::OptionRev::Some(w) => Some(w),
            core::internal::OptionRev::None => None,
        },
        core::internal::OptionRev::None => None,
    }
}

/// x mod p for x < 2p (a sum of two residues, a draw word): one split at p, then p
/// subtracted, range-check free.
pub fn residue_below_two_p(x: BelowTwoP) -> Residue {
    match bounded_int_constrain::<_, 0x7fffffff>(x) {
        Ok(low) => low,
        Err(high) => {
            let p: Modulus = 0x7fffffff;
            bounded_int_sub(high, p)
        },
    }
}
