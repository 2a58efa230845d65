//! The soundness budget the statement check enforces (mirror of prover/softmax/soundness.py
//! `security_problem` and prover/soundness.py `shortfall`; docs/layers/attn.md, "Soundness").
//!
//! Every error term is an integer count N_t over |F| = p^4, so Python's float verdict
//! −log2(Σ N_t / p^4) < 96 is the integer one Σ N_t·2^96 > p^4. As p^4 / 2^96 lies in
//! (2^28 − 1, 2^28) — it is 2^28·(1 − 2^-31)^4 ≈ 2^28 − ½ — that is N = Σ N_t ≥ 2^28; at
//! N = 2^28 − 1 Python's total is 96 + 2.7·10^-9 bits and at 2^28 it is 96 − 2.7·10^-9,
//! margins far beyond float64's error, so the two verdicts agree for every N. Once the
//! witness layout fits (every column ≤ 2^22 values, n ≤ 22) N stays below 2^25: the layout
//! is then the rule that refuses, as the docs' table says (s = 1024, h = 12).

use crate::layers::mha::model::{Dims, DimsTrait};
use super::params::SoftmaxParams;
use super::relations::{instance_vars, witness_layout};

/// N at which the configuration proves less than 96 bits (Σ N_t·2^96 > p^4).
pub const REFUSED_COUNT: u128 = 0x10000000;

/// The error terms as counts over |F| = p^4, in Python's `error_terms` order: LogUp (EXP,
/// LIMB, NORM), GKR layers, recomposition (identity + sum-check), MHA steps around softmax.
/// For configurations whose witness layout fits (n ≤ 22).
pub fn error_counts(dims: @Dims, params: @SoftmaxParams) -> Span<u128> {
    let n_vars = instance_vars(dims, params);
    let (entries, norm) = (pow2_u128(*n_vars[0]), pow2_u128(*n_vars[2]));
    let tables = (pow2_u128(*n_vars[3]), pow2_u128(*n_vars[4]), pow2_u128(*n_vars[5]));
    let (exp, limb, norm_table) = tables;
    let lookups = (entries + exp) + (entries + limb) + (norm + norm_table);
    let mut layers = 0;
    for v in n_vars {
        if *v > layers {
            layers = *v;
        }
    }
    let mut gkr: u128 = 0;
    let per_layer: u128 = n_vars.len().into() + 1;
    for j in 0..layers {
        gkr += 3 * j.into() + per_layer;
    }
    let n: u128 = (*n_vars[0]).into();
    let (s, h): (u128, u128) = (dims.s_vars().into(), dims.h_vars().into());
    let m: u128 = dims.m_vars().into();
    // d = h·m in u64: the statement's shape check bounds it, this never overflows anyway.
    let wide_h: u64 = (*dims.h).into();
    let d: u128 = log2_padded_u64(wide_h * (*dims.m).into()).into();
    let mha = 12 * s + 12 * h + 5 * m + 3 * d + 1;
    array![lookups, gkr, 4 * n, mha].span()
}

/// The terms' total count (a model walk sums every node's terms).
pub fn error_count(dims: @Dims, params: @SoftmaxParams) -> u128 {
    let mut total = 0;
    for count in error_counts(dims, params) {
        total += *count;
    }
    total
}

/// Whether Python's `security_problem` names a problem: the witness layout does not fit (a
/// column larger than a stack), or the terms total less than 96 bits.
pub fn security_problem(dims: @Dims, params: @SoftmaxParams) -> bool {
    if witness_layout(dims, params).is_none() {
        return true;
    }
    error_count(dims, params) >= REFUSED_COUNT
}

/// `softmax.params` if the configuration proves less than 96 bits or its witness fits no
/// stack (after `SoftmaxParams::check`, as attn's statement check runs them).
pub fn check_security(dims: @Dims, params: @SoftmaxParams) {
    assert(!security_problem(dims, params), 'softmax.params');
}

/// 2^k (k < 128), looked up: doubling k times cost a checked u128 product each (≈ 10 range
/// checks), and the requantization's and softmax's bounds ask for it hundreds of times.
pub fn pow2_u128(k: u32) -> u128 {
    *POW2_U128.span()[k]
}

const POW2_U128: [u128; 128] = [0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000, 0x800000, 0x1000000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000, 0x80000000, 0x100000000, 0x200000000, 0x400000000, 0x800000000, 0x1000000000, 0x2000000000, 0x4000000000, 0x8000000000, 0x10000000000, 0x20000000000, 0x40000000000, 0x80000000000, 0x100000000000, 0x200000000000, 0x400000000000, 0x800000000000, 0x1000000000000, 0x2000000000000, 0x4000000000000, 0x8000000000000, 0x10000000000000, 0x20000000000000, 0x40000000000000, 0x80000000000000, 0x100000000000000, 0x200000000000000, 0x400000000000000, 0x800000000000000, 0x1000000000000000, 0x2000000000000000, 0x4000000000000000, 0x8000000000000000, 0x10000000000000000, 0x20000000000000000, 0x40000000000000000, 0x80000000000000000, 0x100000000000000000, 0x200000000000000000, 0x400000000000000000, 0x800000000000000000, 0x1000000000000000000, 0x2000000000000000000, 0x4000000000000000000, 0x8000000000000000000, 0x10000000000000000000, 0x20000000000000000000, 0x40000000000000000000, 0x80000000000000000000, 0x100000000000000000000, 0x200000000000000000000, 0x400000000000000000000, 0x800000000000000000000, 0x1000000000000000000000, 0x2000000000000000000000, 0x4000000000000000000000, 0x8000000000000000000000, 0x10000000000000000000000, 0x20000000000000000000000, 0x40000000000000000000000, 0x80000000000000000000000, 0x100000000000000000000000, 0x200000000000000000000000, 0x400000000000000000000000, 0x800000000000000000000000, 0x1000000000000000000000000, 0x2000000000000000000000000, 0x4000000000000000000000000, 0x8000000000000000000000000, 0x10000000000000000000000000, 0x20000000000000000000000000, 0x40000000000000000000000000, 0x80000000000000000000000000, 0x100000000000000000000000000, 0x200000000000000000000000000, 0x400000000000000000000000000, 0x800000000000000000000000000, 0x1000000000000000000000000000, 0x2000000000000000000000000000, 0x4000000000000000000000000000, 0x8000000000000000000000000000, 0x10000000000000000000000000000, 0x20000000000000000000000000000, 0x40000000000000000000000000000, 0x80000000000000000000000000000, 0x100000000000000000000000000000, 0x200000000000000000000000000000, 0x400000000000000000000000000000, 0x800000000000000000000000000000, 0x1000000000000000000000000000000, 0x2000000000000000000000000000000, 0x4000000000000000000000000000000, 0x8000000000000000000000000000000, 0x10000000000000000000000000000000, 0x20000000000000000000000000000000, 0x40000000000000000000000000000000, 0x80000000000000000000000000000000];

fn log2_padded_u64(x: u64) -> u32 {
    let (mut n, mut size) = (0, 1_u64);
    while size < x {
        size *= 2;
        n += 1;
    }
    n
}
