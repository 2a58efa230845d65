//! Public parameters of the quantised softmax and the statement check the verifier runs on
//! them (mirror of prover/softmax/params.py; docs/layers/attn.md, "Integer semantics").
//!
//! Scores S = Q₈·K₈ᵀ have |S| ≤ S_max = m·127² (int8 Q and K). The exp argument u = Z_i − c·S_ij
//! is an integer in units of 2^-F; c·S_max ≤ 2^28 keeps u in [0, 2^30), so its limbs lo
//! (F − 12 bits), e (16 bits) and hi (26 − F bits) rebuild it without wrapping mod p. Outputs
//! are at scale 2^θ; ŝ·2^θ ≤ 2^30 keeps a row sum from wrapping. ε bounds |R_i − 2^θ| for an
//! honest row. Every rule is decided in integers, exactly as Python decides it (Python's one
//! float, e^(2^-12) − 1 in ε, is the table `EXP_SLACK`).

use crate::mle::log2_padded;
use crate::merkle::hashers::HASH_BLAKE2S;
use super::tables::exp_table_root;

/// Output scale 2^θ; valid for ŝ ≤ 2^(30−θ) = 2048.
pub const THETA: u32 = 19;
/// The exp table's resolution is 2^-12 in the argument.
pub const EXP_RES_BITS: u32 = 12;
/// The exp table has 2^16 entries: arguments [0, 16).
pub const EXP_BITS: u32 = 16;
/// Every exp argument u lies in [0, 2^30) ⊂ [0, p).
pub const U_BITS: u32 = 30;
/// u on masked and padded entries: its hi limb is 2^(25−F) ≠ 0, so y = 0 exactly.
pub const U_MASK: u32 = 0x20000000;
/// c·S_max ≤ 2^28.
pub const U_HEADROOM_BITS: u32 = 28;
/// |Q|, |K| ≤ 127 (int8).
pub const QK_BOUND: u32 = 127;
/// F ≥ 12 so lo has ≥ 0 bits; F ≤ 25 so U_MASK's hi limb 2^(25−F) is a nonzero integer.
pub const F_MIN: u32 = 12;
pub const F_MAX: u32 = 25;
/// lo_bits + hi_bits = 14 for every F: the LIMB table has 2^14 rows.
pub const LIMB_BITS: u32 = 14;

/// ⌈2^θ·(e^(2^-12) − 1)⌉ for θ = 0, …, 30 (every θ with ŝ·2^θ ≤ 2^30 for some ŝ): Python's
/// `math.ceil(2.0**theta * DELTA)`, which is exact for these θ — 2^θ·(e^(2^-12) − 1) is at
/// least 8·10^-5 from an integer, float64's error below 10^-10 (tests/test_cairo_softmax.py
/// bounds the series in rationals; the generated vectors compare `epsilon` for every θ).
const EXP_SLACK: [u32; 31] = [
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025, 2049, 4097,
    8194, 16387, 32773, 65545, 131089, 262177,
];

/// F (argument scale 2^-F), c = round(γ·2^F), θ (output scale), ε (row-sum tolerance), k_n
/// (NORM table bits): the statement's dims 4 to 8.
#[derive(Copy, Drop, PartialEq, Debug)]
pub struct SoftmaxParams {
    pub f: u32,
    pub c: u32,
    pub theta: u32,
    pub eps: u32,
    pub k_n: u32,
}

/// The largest |score| of int8 Q and K over head dimension m.
pub fn s_max(m: u32) -> u64 {
    m.into() * (QK_BOUND * QK_BOUND).into()
}

/// ε = ⌈2^θ·Δ⌉ + ⌈ŝ/2⌉ + 1, ŝ = next_pow2(s): for parameters whose ŝ·2^θ ≤ 2^30 (the rule
/// `has_problem` decides first), so θ ≤ 30 and ŝ ≤ 2^30.
pub fn epsilon(s: u32, theta: u32) -> u32 {
    let s_hat: u64 = pow2_u64(log2_padded(s));
    let slack: u64 = (*EXP_SLACK.span()[theta]).into();
    (slack + (s_hat + 1) / 2 + 1).try_into().unwrap()
}

/// k_n = ⌈log2(2ε + 1)⌉, the bit length of 2ε: the NORM table [0, 2^k_n) holds both slacks.
pub fn norm_bits(eps: u32) -> u32 {
    let mut rest: u64 = 2 * eps.into();
    let mut bits = 0;
    while rest != 0 {
        rest /= 2;
        bits += 1;
    }
    bits
}

fn pow2_u64(k: u32) -> u64 {
    let mut x: u64 = 1;
    for _ in 0..k {
        x *= 2;
    }
    x
}

#[generate_trait]
pub impl SoftmaxParamsImpl of SoftmaxParamsTrait {
    /// Python `attn.model.params_of`: dims (s, h, m, causal, F, c, θ, ε, k_n) of an attn
    /// statement whose shape check passed (nine dims).
    fn from_dims(dims: Span<u32>) -> SoftmaxParams {
        SoftmaxParams { f: *dims[4], c: *dims[5], theta: *dims[6], eps: *dims[7], k_n: *dims[8] }
    }

    /// F − 12 (parameters the check accepted).
    fn lo_bits(self: @SoftmaxParams) -> u32 {
        *self.f - EXP_RES_BITS
    }

    /// 14 − lo_bits = 26 − F.
    fn hi_bits(self: @SoftmaxParams) -> u32 {
        LIMB_BITS - self.lo_bits()
    }

    /// Whether Python's `SoftmaxParams.problem(s, m)` names a problem: the same rules in the
    /// same order, in integers that cannot overflow for any u32 dims.
    fn has_problem(self: @SoftmaxParams, s: u32, m: u32) -> bool {
        let p = *self;
        if s < 1 || m < 1 {
            return true;
        }
        if p.f < F_MIN || p.f > F_MAX {
            return true;
        }
        if p.c < 1 {
            return true;
        }
        let headroom: u128 = 0x10000000; // 2^U_HEADROOM_BITS
        let c: u128 = p.c.into();
        if c * s_max(m).into() > headroom {
            return true;
        }
        // ŝ·2^θ > 2^30 with ŝ = 2^S: S + θ > 30 (in u64: θ may be any u32).
        let wide_theta: u64 = p.theta.into();
        if wide_theta + log2_padded(s).into() > U_BITS.into() {
            return true;
        }
        if exp_table_root(p.theta, HASH_BLAKE2S).is_none() { // either hash: the same θ
            return true;
        }
        if p.eps != epsilon(s, p.theta) {
            return true;
        }
        p.k_n != norm_bits(p.eps)
    }

    /// The verifier's check of the statement's parameters (`softmax.params`).
    fn check(self: @SoftmaxParams, s: u32, m: u32) {
        assert(!self.has_problem(s, m), 'softmax.params');
    }
}
