//! Requant's public parameters and their rules (mirror of prover/layers/requant/params.py;
//! docs/layers/requant.md, "Integer semantics"). dims = (rows, cols, M, k, b, a, w): the
//! input bound A = 2^a − 1, or less where x·M + 2^(k−1) could reach 2^30; the quotients'
//! admissible interval [y'_lo, y'_hi], cut to the window of 2^w around 0, sizes the CLAMP
//! table.

use crate::softmax::soundness::pow2_u128 as pow2;

/// |x·M + 2^(k−1)| < 2^30: the integer relation cannot wrap mod p.
pub const VALUE_BITS: u32 = 30;
/// b + k ≤ 30.
pub const BIT_SUM_MAX: u32 = 30;
/// The CLAMP table has at most 2^20 rows; w ≤ 20.
pub const CLAMP_BITS_MAX: u32 = 20;
const TWO_30: u128 = 0x40000000;
const P: u32 = 0x7fffffff;

/// M, k, b, A and w as Python's `RequantParams.of_bits` makes them. `bound` is None where
/// Python's A is negative: k ≥ 31 with a ≤ 30, when 2^(k−1) alone exceeds 2^30 − 1.
#[derive(Copy, Drop, Debug, PartialEq)]
pub struct RequantParams {
    pub multiplier: u32,
    pub shift: u32,
    pub bits: u32,
    pub bound: Option<u128>,
    pub window_bits: u32,
}

#[generate_trait]
pub impl RequantParamsImpl of RequantParamsTrait {
    /// From a statement's dims (seven, as the shape check has made sure).
    fn from_dims(dims: Span<u32>) -> RequantParams {
        let (multiplier, shift, bits, in_bits) = (*dims[2], *dims[3], *dims[4], *dims[5]);
        let mut bound = Some(pow2(core::cmp::min(in_bits, VALUE_BITS + 1)) - 1);
        if multiplier >= 1 && shift >= 1 && in_bits <= VALUE_BITS {
            bound =
                if shift > VALUE_BITS {
                    None
                } else {
                    let cap = (TWO_30 - 1 - pow2(shift - 1)) / multiplier.into();
                    Some(core::cmp::min(bound.unwrap(), cap))
                };
        }
        RequantParams { multiplier, shift, bits, bound, window_bits: *dims[6] }
    }

    /// Whether M, k, b, A and w are invalid (Python `problem`): M ∈ [1, p) (invertible: the
    /// claim on x divides by it), A ∈ [0, 2^30),
    /// k, b ≥ 1, 1 ≤ w ≤ 20, b + k ≤ 30. The other rules assume they are valid.
    fn problem(self: @RequantParams) -> bool {
        let bound_ok = match *self.bound {
            Some(a) => a < TWO_30,
            None => false,
        };
        let invertible = *self.multiplier >= 1 && *self.multiplier < P;
        if !invertible || !bound_ok || *self.shift < 1 || *self.bits < 1 {
            return true;
        }
        if *self.window_bits < 1 || *self.window_bits > CLAMP_BITS_MAX {
            return true;
        }
        let sum: u64 = (*self.shift).into() + (*self.bits).into();
        sum > BIT_SUM_MAX.into()
    }

    /// A, once the parameters are valid.
    fn a(self: @RequantParams) -> u128 {
        (*self.bound).unwrap()
    }

    /// ⌈k/2⌉: the RANGE table's bits (r0 < 2^⌈k/2⌉).
    fn lo_bits(self: @RequantParams) -> u32 {
        (*self.shift + 1) / 2
    }

    /// δ = 2^⌈k/2⌉ − 2^⌊k/2⌋: r1 < 2^⌊k/2⌋ is checked as r1, r1 + δ < 2^⌈k/2⌉.
    fn delta(self: @RequantParams) -> u128 {
        pow2(self.lo_bits()) - pow2(*self.shift / 2)
    }

    /// 2^(k−1).
    fn half(self: @RequantParams) -> u128 {
        pow2(*self.shift - 1)
    }

    /// C = 2^(b−1) − 1: y ∈ [−C, C].
    fn clamp(self: @RequantParams) -> i64 {
        let c: u128 = pow2(*self.bits - 1) - 1;
        c.try_into().unwrap()
    }

    /// Whether A·M + 2^(k−1) ≥ 2^30: x·M could wrap mod p (`statement.range`).
    fn range_problem(self: @RequantParams) -> bool {
        self.a() * (*self.multiplier).into() + self.half() >= TWO_30
    }

    /// [y'_lo, y'_hi]: every ⌊(x·M + 2^(k−1))/2^k⌋ with |x| ≤ A (A·M + 2^(k−1) < 2^30),
    /// cut to the window of 2^w quotients around 0.
    fn quotient_range(self: @RequantParams) -> (i64, i64) {
        let (x, half, step) = (self.a() * (*self.multiplier).into(), self.half(), pow2(*self.shift));
        // ⌊(half − x)/2^k⌋, negative when x > half: −⌈(x − half)/2^k⌉.
        let lo: i64 = if half >= x {
            ((half - x) / step).try_into().unwrap()
        } else {
            let up: i64 = ((x - half + step - 1) / step).try_into().unwrap();
            -up
        };
        let hi: i64 = ((x + half) / step).try_into().unwrap();
        let window: i64 = pow2(*self.window_bits - 1).try_into().unwrap();
        (core::cmp::max(lo, -window), core::cmp::min(hi, window - 1))
    }

    /// t: 2^t > y'_hi − y'_lo, at least 1.
    fn table_bits(self: @RequantParams) -> u32 {
        let (lo, hi) = self.quotient_range();
        let mut span: u128 = (hi - lo).try_into().unwrap();
        let mut t = 0;
        while span != 0 {
            span /= 2;
            t += 1;
        }
        core::cmp::max(t, 1)
    }

    /// Whether the CLAMP table would exceed 2^20 rows (`requant.params`).
    fn table_problem(self: @RequantParams) -> bool {
        self.table_bits() > CLAMP_BITS_MAX
    }
}
