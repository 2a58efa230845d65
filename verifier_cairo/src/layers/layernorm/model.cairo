//! LayerNorm's statement check (mirror of prover/layers/layernorm/model.py `check`): dims (s,
//! d, w, R, E, k_n, b_n, g, k_z, b_z), h and y of s × d, the statistics s1 (s) and s2 (s × 3),
//! β and γ of d (`statement.shape`, in the encoder class); then, in the lookup class, the
//! parameter rules (`layernorm.params`), h within its limbs' range and |γ| ≤ 2^g − 1 where
//! known, the relations' no-wrap bounds that read γ or β (`statement.range`), soundness
//! (`layernorm.params`) and the witness stacks (`layernorm.commitment`).

use crate::layers::requant::params::RequantParamsTrait;
use crate::lookups::contract::{LookupClass, LookupClassTrait};
use crate::mle::log2_padded;
use crate::ranges::{HALF, ceil_sqrt, square_sum};
use crate::softmax::soundness::pow2_u128 as pow2;
use crate::walk::statement::{PublicStatement, expect_shapes, tensor};
use crate::walk::tensor::{
    Bound, Known, PublicTensor, PublicTensorTrait, TensorCommitment, TensorsTrait, at_most, signed,
};
use super::params::{LayerNormParams, LayerNormParamsTrait};
use super::soundness::{error_count, security_problem};
use super::verifier::check_commitments;

/// The encoder class's half: shapes, then the lookup class's `layernorm_check` with what the
/// statement knows of h, γ and β; returns the layer's error count over |F|.
pub fn check(st: @PublicStatement, lookup: LookupClass) -> u128 {
    let dims = *st.dims;
    assert(dims.len() == 10, 'statement.shape');
    let (s, d) = (*dims[0], *dims[1]);
    assert(s >= 1 && d >= 1 && *dims[2] >= 1, 'statement.shape');
    let (grid, row) = (array![s, d].span(), array![d].span());
    expect_shapes(*st.inputs, array!['h'].span(), array![grid].span());
    let stats = array![array![s].span(), array![s, 3].span(), grid].span();
    expect_shapes(*st.outputs, array!['s1', 's2', 'y'].span(), stats);
    expect_shapes(*st.weights, array!['beta', 'gamma'].span(), array![row, row].span());
    let h = extremes(tensor(*st.inputs, 'h'));
    let (beta, gamma) = (tensor(*st.weights, 'beta'), tensor(*st.weights, 'gamma'));
    let witness = *st.witness;
    lookup.layernorm_check(dims, h, known_max(gamma), known_max(beta), witness.names, witness.commitments())
}

/// (min, max) of a tensor as the checks read it: its values, or every entry at its bound (a
/// hidden tensor's worst case, Python `views._worst`); None when nothing is known.
fn extremes(t: PublicTensor) -> Option<(i64, i64)> {
    match t.known {
        Known::Values => {
            let (mut lo, mut hi) = (0, 0);
            for v in t.values {
                let x = signed(*v);
                lo = core::cmp::min(lo, x);
                hi = core::cmp::max(hi, x);
            }
            Some((lo, hi))
        },
        Known::AtMost(bound) => {
            let b: i64 = core::cmp::min(bound.max, HALF + 1).try_into().unwrap();
            Some((b, b))
        },
        _ => None,
    }
}

/// max|x| of a known tensor, None for a committed one (its relations are skipped).
fn known_max(t: PublicTensor) -> Option<u128> {
    if t.known() {
        Some(t.max_magnitude())
    } else {
        None
    }
}

/// The lookup class's half, in Python's order after the shapes; returns the error count.
/// (Of the relations, those that read only the parameters cannot wrap once the parameter rules
/// hold, and the row-norm one's bound is at most y's: only γ's and β's need checking.)
pub fn check_params(
    dims: Span<u32>,
    h: Option<(i64, i64)>,
    gamma: Option<u128>,
    beta: Option<u128>,
    names: Span<felt252>,
    commitments: Span<TensorCommitment>,
) -> u128 {
    let params = LayerNormParamsTrait::from_dims(dims);
    assert(!params.problem(), 'layernorm.params');
    if let Some((lo, hi)) = h {
        let (min, max) = params.h_range();
        assert(lo >= min && hi <= max, 'statement.range');
    }
    let (norm, scale) = (params.norm(), params.scale());
    let half = HALF;
    if let Some(g) = gamma {
        assert(g <= params.gamma_bound(), 'statement.range');
        let clamp: u128 = norm.clamp().try_into().unwrap();
        assert(clamp * g + scale.half() <= half, 'statement.range');
    }
    if let Some(b) = beta {
        let clamp: u128 = scale.clamp().try_into().unwrap();
        assert(clamp + b <= half, 'statement.range');
    }
    let (s_vars, d_vars) = (log2_padded(*dims[0]), log2_padded(*dims[1]));
    assert(!security_problem(s_vars, d_vars, @params), 'layernorm.params');
    check_commitments(s_vars + d_vars, @params, names, commitments);
    error_count(s_vars, d_vars, @params)
}

/// s1 ≤ d·2^(2w−1), every limb sum ≤ d·(2^w − 1)²; y ≤ 2^(b_z−1) − 1 + max|β| when β is known
/// and, when γ is too, ‖y_i‖₂ from the row statistics (`output_norm`; Python
/// `_output_bound`). A graph's β and γ are committed on chain: known when declared.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    let params = LayerNormParamsTrait::from_dims(*st.dims);
    let mut out = array![
        at_most(Some(params.row_sum_bound())), at_most(Some(params.limb_sum_bound())),
    ];
    let (beta, gamma) = (tensor(*st.weights, 'beta'), tensor(*st.weights, 'gamma'));
    if !beta.known() {
        out.append(None);
        return out.span();
    }
    let clamp: u128 = params.scale().clamp().try_into().unwrap();
    let y = clamp + beta.max_magnitude();
    if !gamma.known() {
        out.append(Some(Bound { max: y, row_sq: None }));
        return out.span();
    }
    let beta_sq = match beta.known {
        Known::Declared(range) => range.magnitude * range.col_abs,
        _ => square_sum(beta.values),
    };
    let (s1, s2) = (tensor(*st.outputs, 's1').values, tensor(*st.outputs, 's2').values);
    let (norm, norm_sq) = output_norm(@params, s1, s2, gamma.max_magnitude(), beta_sq);
    out.append(Some(Bound { max: core::cmp::min(norm, y), row_sq: Some(norm_sq) }));
    out.span()
}

/// Beyond this a row's Σy² bound is capped: the Euclidean term of a product it bounds is then
/// beyond (p−1)/2, capped or not (or 0 both ways, when the other side's is 0), so the verdicts
/// and bounds are Python's.
const ROW_SQ_CAP: u128 = 0x10000000000000000;

/// (⌈N⌉, min(⌈N²⌉, ROW_SQ_CAP)) for N = Python's `_output_norm`, the bound on every ‖y_i‖₂:
/// with c = ⌈√max_i r_i²·Σ(h − μ_i)²⌉, N = (c/2^k_n + ⌈√d⌉/2)·max|γ|/2^k_z + ⌈√d⌉/2 +
/// ⌈√Σβ²⌉, exactly, as N·2^(k_n+k_z+1) over the integers (docs/layers/layernorm.md, "Row
/// norms").
fn output_norm(
    params: @LayerNormParams, s1: Span<felt252>, s2: Span<felt252>, gamma: u128, beta_sq: u128,
) -> (u128, u128) {
    let d: i128 = (*params.d).into();
    let mut worst: u256 = 0;
    for row in row_statistics(s1, s2, params) {
        let centred = *row.s2 - 2 * *row.mean * *row.s1 + d * *row.mean * *row.mean;
        if centred > 0 {
            let c: u128 = centred.try_into().unwrap();
            let r: u256 = (*row.factor).into();
            worst = core::cmp::max(worst, r * r * c.into());
        }
    }
    let (root_d, root_beta) = (ceil_sqrt((*params.d).into()), ceil_sqrt(beta_sq.into()));
    let (k_n, k_z) = (*params.norm_shift, *params.scale_shift);
    let scaled: u256 = 2 * ceil_sqrt(worst).into() * gamma.into()
        + (root_d * gamma * pow2(k_n)).into()
        + (root_d * pow2(k_n + k_z)).into()
        + root_beta.into() * pow2(k_n + k_z + 1).into();
    let denominator: u256 = pow2(k_n + k_z + 1).into();
    if scaled >= pow2(127).into() {
        return (scaled_ceil(scaled, denominator), ROW_SQ_CAP);
    }
    let norm = scaled_ceil(scaled, denominator);
    let square = scaled_ceil(scaled * scaled, denominator * denominator);
    (norm, core::cmp::min(square, ROW_SQ_CAP))
}

/// ⌈a/b⌉, saturated at 2^128 − 1.
fn scaled_ceil(a: u256, b: u256) -> u128 {
    match ((a + b - 1) / b).try_into() {
        Some(v) => v,
        None => core::num::traits::Bounded::<u128>::MAX,
    }
}

/// One row's statistics as integers (Python `row_factors`): S1, S2 = Σlo² + 2^(w+1)·Σlo·hi +
/// 2^(2w)·Σhi², the rounded mean μ = ⌊(2·S1 + d)/(2d)⌋ and the factor r = isqrt(⌊2^(2R)·d² /
/// max(1, d·S2 − S1² + d²·E)⌋).
#[derive(Copy, Drop)]
pub struct RowStatistics {
    pub s1: i128,
    pub s2: i128,
    pub mean: i128,
    pub factor: u64,
}

/// Every row's statistics from the public s1 and s2. Every public value is within ±(p−1)/2
/// and w ≤ 15, d ≤ 2^28, E < 2^32, R ≤ 30: every term fits an i128.
pub fn row_statistics(
    s1: Span<felt252>, s2: Span<felt252>, params: @LayerNormParams,
) -> Span<RowStatistics> {
    let d: i128 = (*params.d).into();
    let w = *params.limb_bits;
    let shift_hi: i128 = pow2(w + 1).try_into().unwrap();
    let shift_sq: i128 = pow2(2 * w).try_into().unwrap();
    let numerator: u128 = (*params.d).into() * (*params.d).into() * pow2(2 * *params.shift);
    let eps: i128 = (*params.eps).into();
    let mut out = array![];
    let mut i = 0;
    for a in s1 {
        let a: i128 = signed(*a).into();
        let (lo2, lohi, hi2): (i128, i128, i128) = (
            signed(*s2[3 * i]).into(), signed(*s2[3 * i + 1]).into(), signed(*s2[3 * i + 2]).into(),
        );
        let sq = lo2 + lohi * shift_hi + hi2 * shift_sq;
        let variance = d * sq - a * a + d * d * eps;
        let den: u128 = if variance < 1 {
            1
        } else {
            variance.try_into().unwrap()
        };
        let factor: u64 = core::num::traits::Sqrt::sqrt(numerator / den);
        out.append(RowStatistics { s1: a, s2: sq, mean: floor_div(2 * a + d, 2 * d), factor });
        i += 1;
    }
    out.span()
}

/// ⌊a/b⌋ for b > 0 (Python's //).
fn floor_div(a: i128, b: i128) -> i128 {
    let (m, b_u): (u128, u128) = (abs(a), b.try_into().unwrap());
    if a >= 0 {
        (m / b_u).try_into().unwrap()
    } else {
        let up: i128 = ((m + b_u - 1) / b_u).try_into().unwrap();
        -up
    }
}

fn abs(a: i128) -> u128 {
    if a < 0 {
        (-a).try_into().unwrap()
    } else {
        a.try_into().unwrap()
    }
}
