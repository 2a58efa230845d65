//! LayerNorm's soundness rule (mirror of prover/layers/layernorm/soundness.py `security_problem`;
//! docs/layers/layernorm.md, "Soundness").
//!
//! Python refuses a configuration whose witness fits no stack (a column of 2^n entries with
//! n > 22) or whose error terms, counts N over |F| = p^4, total less than 96 bits (N ≥ 2^28).
//! Once the layout fits, n ≤ 22, each gadget's ⌈k/2⌉ ≤ 15 and t ≤ 20, and w ≤ 15, so the
//! LogUp term is at most 2·(2^24 + 2^22 + 2^15 + 2^20) + 2^23 + 2^15, the GKR term
//! Σ_{j<24} (3j + 11) = 1,092, the sum-checks' 3·(2n) + 1 = 133 and the identities'
//! 8n + 2 = 178: N < 2^26, never refused. The layout is then the whole rule.

use crate::softmax::soundness::pow2_u128;
use super::params::LayerNormParams;
use super::relations::{instance_vars, witness_layout};

/// Whether Python's `security_problem` names a problem for an ŝ × d̂ grid.
pub fn security_problem(s_vars: u32, d_vars: u32, params: @LayerNormParams) -> bool {
    witness_layout(s_vars + d_vars, params).is_none()
}

/// Python's `error_terms` as one count over |F| = p^4: the three relations' LogUp, the GKR
/// layers, the sum-checks (scale, normalise, statistics and μ) and the identities at random
/// points.
pub fn error_count(s_vars: u32, d_vars: u32, params: @LayerNormParams) -> u128 {
    let n = s_vars + d_vars;
    let v = instance_vars(n, params);
    let mut lookups = 0;
    let mut layers = 0;
    for x in v {
        lookups += pow2_u128(*x);
        layers = core::cmp::max(layers, *x);
    }
    let per_layer: u128 = v.len().into() + 1;
    let mut gkr = 0;
    for j in 0..layers {
        gkr += 3 * j.into() + per_layer;
    }
    let (n, s_vars, d_vars): (u128, u128, u128) = (n.into(), s_vars.into(), d_vars.into());
    lookups + gkr + (3 * (d_vars + s_vars + n) + 1) + (6 * n + 2 * s_vars + 2)
}
