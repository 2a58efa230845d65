//! M31, CM31 and QM31 arithmetic on canonical values (docs/pcs.md, prover/fields).
//!
//! Values are u64 in [0, p); QM31 is [a, b, c, d] = (a + b·i) + (c + d·i)·u with i² = −1 and
//! u² = 2 + i, STWO's order, as in prover/fields/qm31.py.

pub const P: u64 = (1 << 31) - 1;

pub type Qm31 = [u64; 4];

pub const ZERO: Qm31 = [0; 4];

/// x mod p for any u64 (2^31 ≡ 1 mod p: fold the high bits onto the low ones twice).
#[inline(always)]
pub fn reduce(x: u64) -> u64 {
    let x = (x & P) + (x >> 31);
    let x = (x & P) + (x >> 31);
    if x >= P {
        x - P
    } else {
        x
    }
}

/// x mod p for x < 2^62 (one product of canonical values): one fold, one subtraction.
#[inline(always)]
pub fn reduce_product(x: u64) -> u64 {
    let x = (x & P) + (x >> 31);
    if x >= P {
        x - P
    } else {
        x
    }
}

#[inline(always)]
pub fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

#[inline(always)]
pub fn sub(a: u64, b: u64) -> u64 {
    add(a, P - b)
}

#[inline(always)]
pub fn mul(a: u64, b: u64) -> u64 {
    reduce_product(a * b)
}

/// x/2: p is odd, so an odd x is halved as (x + p)/2.
#[inline(always)]
pub fn half(x: u64) -> u64 {
    (x + (x & 1) * P) >> 1
}

#[inline(always)]
pub fn qadd(x: &Qm31, y: &Qm31) -> Qm31 {
    [
        add(x[0], y[0]),
        add(x[1], y[1]),
        add(x[2], y[2]),
        add(x[3], y[3]),
    ]
}

#[inline(always)]
pub fn qsub(x: &Qm31, y: &Qm31) -> Qm31 {
    [
        sub(x[0], y[0]),
        sub(x[1], y[1]),
        sub(x[2], y[2]),
        sub(x[3], y[3]),
    ]
}

#[inline(always)]
pub fn qmul_base(x: &Qm31, s: u64) -> Qm31 {
    [mul(x[0], s), mul(x[1], s), mul(x[2], s), mul(x[3], s)]
}

/// (A + B·u)(C + D·u) = AC + BD·(2 + i) + (AD + BC)·u over CM31, every sum of products
/// accumulated in u64 before one reduction (each product < 2^62, p² terms keep them positive).
#[inline(always)]
pub fn qmul(x: &Qm31, y: &Qm31) -> Qm31 {
    let [a0, a1, b0, b1] = *x;
    let [c0, c1, d0, d1] = *y;
    let pp = P * P;
    // BD = (b0 d0 − b1 d1) + (b0 d1 + b1 d0) i, reduced so (2 + i)·BD stays small.
    let bd0 = reduce(b0 * d0 + pp - b1 * d1);
    let bd1 = reduce(b0 * d1 + b1 * d0);
    // (2 + i)(s + t i) = (2s − t) + (s + 2t) i
    let lo0 = reduce(a0 * c0 + pp - a1 * c1 + 2 * bd0 + P - bd1);
    let lo1 = reduce(a0 * c1 + a1 * c0 + bd0 + 2 * bd1);
    let hi0 = reduce(a0 * d0 + pp - a1 * d1 + b0 * c0 + pp - b1 * c1);
    let hi1 = reduce(a0 * d1 + a1 * d0 + b0 * c1 + b1 * c0);
    [lo0, lo1, hi0, hi1]
}

/// Sums of many canonical QM31 values, reduced once at the end: u64 lanes hold 2^33 terms.
#[derive(Clone, Copy, Default)]
pub struct Acc([u64; 4]);

impl Acc {
    #[inline(always)]
    pub fn add(&mut self, x: &Qm31) {
        for (a, v) in self.0.iter_mut().zip(x) {
            *a += v;
        }
    }

    pub fn value(&self) -> Qm31 {
        self.0.map(reduce)
    }
}
