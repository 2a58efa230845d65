//! LayerNorm's public parameters and their rules (mirror of prover/layers/layernorm/params.py;
//! docs/layers/layernorm.md, "Integer semantics"). dims = (s, d, w, R, E, k_n, b_n, g, k_z,
//! b_z): rows h of d integers with limbs of w bits, the factor's shift R, ε at scale E, the
//! normalising requantization (k_n, b_n), |γ| ≤ 2^g − 1, the scaling one (k_z, b_z).

use crate::layers::requant::params::{RequantParams, RequantParamsTrait};
use crate::softmax::soundness::pow2_u128 as pow2;

/// Every statistic and product the proof establishes stays below 2^30 in magnitude.
const VALUE_BITS: u32 = 30;
/// R ≤ 30.
const MAX_SHIFT: u32 = 30;
/// A gadget's quotient window (Python `RequantParams`' default w).
const WINDOW_BITS: u32 = 20;

#[derive(Copy, Drop, Debug)]
pub struct LayerNormParams {
    pub d: u32,
    pub limb_bits: u32,
    pub shift: u32,
    pub eps: u32,
    pub norm_shift: u32,
    pub norm_bits: u32,
    pub gamma_bits: u32,
    pub scale_shift: u32,
    pub scale_bits: u32,
}

#[generate_trait]
pub impl LayerNormParamsImpl of LayerNormParamsTrait {
    /// From a statement's ten dims (the shape check has made sure).
    fn from_dims(dims: Span<u32>) -> LayerNormParams {
        LayerNormParams {
            d: *dims[1],
            limb_bits: *dims[2],
            shift: *dims[3],
            eps: *dims[4],
            norm_shift: *dims[5],
            norm_bits: *dims[6],
            gamma_bits: *dims[7],
            scale_shift: *dims[8],
            scale_bits: *dims[9],
        }
    }

    /// Python `problem() is not None` (`layernorm.params`): d, w ≥ 1, g ≤ 30, d·4^w ≤ 2^30,
    /// R ≤ 30, then each gadget's parameter, range and table rules (normalise first: the
    /// scale gadget's bound reads its clamp).
    fn problem(self: @LayerNormParams) -> bool {
        let (d, w) = (*self.d, *self.limb_bits);
        if d < 1 || w < 1 || *self.gamma_bits > 30 {
            return true;
        }
        // w ≥ 16 makes d·4^w ≥ 2^32 > 2^30 (d ≥ 1).
        if w >= 16 || d.into() * pow2(2 * w) > pow2(VALUE_BITS) || *self.shift > MAX_SHIFT {
            return true;
        }
        let norm = self.norm();
        if norm.problem() || norm.range_problem() || norm.table_problem() {
            return true;
        }
        let scale = self.scale();
        scale.problem() || scale.range_problem() || scale.table_problem()
    }

    /// [lo, hi] of h: −2^(2w−1) ≤ h ≤ 2^(2w−1) − 1, what two limbs in range rebuild.
    fn h_range(self: @LayerNormParams) -> (i64, i64) {
        let half: i64 = pow2(2 * *self.limb_bits - 1).try_into().unwrap();
        (-half, half - 1)
    }

    /// 2^(w−1): the high limb enters the LIMB table shifted by it.
    fn offset(self: @LayerNormParams) -> u128 {
        pow2(*self.limb_bits - 1)
    }

    /// ⌊2^(R+1)·√(d−1)⌋ ≥ |(h − μ)·r| for every row: isqrt((d − 1)·2^(2R+2)).
    fn norm_bound(self: @LayerNormParams) -> u128 {
        let radicand: u256 = (*self.d - 1).into() * pow2(2 * *self.shift + 2).into();
        let root: u128 = core::num::traits::Sqrt::sqrt(radicand);
        root
    }

    /// n = R((h − μ)·r; k_n, b_n): M = 1, A the norm bound.
    fn norm(self: @LayerNormParams) -> RequantParams {
        RequantParams {
            multiplier: 1,
            shift: *self.norm_shift,
            bits: *self.norm_bits,
            bound: Some(self.norm_bound()),
            window_bits: WINDOW_BITS,
        }
    }

    /// 2^g − 1 ≥ |γ|.
    fn gamma_bound(self: @LayerNormParams) -> u128 {
        pow2(*self.gamma_bits) - 1
    }

    /// z = R(n·γ; k_z, b_z), |n·γ| ≤ (2^(b_n−1) − 1)·(2^g − 1), once normalise is valid.
    fn scale(self: @LayerNormParams) -> RequantParams {
        let clamp: u128 = self.norm().clamp().try_into().unwrap();
        RequantParams {
            multiplier: 1,
            shift: *self.scale_shift,
            bits: *self.scale_bits,
            bound: Some(clamp * self.gamma_bound()),
            window_bits: WINDOW_BITS,
        }
    }

    /// |S1| ≤ d·2^(2w−1), once the parameters are valid.
    fn row_sum_bound(self: @LayerNormParams) -> u128 {
        (*self.d).into() * pow2(2 * *self.limb_bits - 1)
    }

    /// Every |limb sum| ≤ d·(2^w − 1)².
    fn limb_sum_bound(self: @LayerNormParams) -> u128 {
        let top = pow2(*self.limb_bits) - 1;
        (*self.d).into() * top * top
    }
}
