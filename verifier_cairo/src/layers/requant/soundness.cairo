//! Requant's soundness rule (mirror of prover/layers/requant/soundness.py `security_problem`;
//! docs/layers/requant.md, "Soundness").
//!
//! Python refuses a configuration whose witness fits no stack (a column of 2^n entries with
//! n > 22) or whose error terms, counts N over |F| = p^4, total less than 96 bits — N ≥ 2^28,
//! as softmax/soundness.cairo shows. Once the layout fits, n ≤ 22, ⌈k/2⌉ ≤ 15 and t ≤ 20 (the
//! table rule runs first), so the LogUp term is at most 2^24 + 2^15 + 2^22 + 2^20, the GKR
//! term Σ_{j<24} (3j + 5) = 948 and the identity term 2n = 44: N < 2^25, never refused. The
//! layout is then the whole rule.

use crate::softmax::soundness::pow2_u128;
use super::params::RequantParams;
use super::relations::{instance_vars, witness_layout};

/// Whether Python's `security_problem` names a problem for 2^n entries (after the table rule).
pub fn security_problem(n: u32, params: @RequantParams) -> bool {
    witness_layout(n, params).is_none()
}

/// Python's `error_terms` as one count over |F| = p^4 (a model walk sums every node's terms,
/// docs/model-walk.md "Soundness"): RANGE and CLAMP's LogUp, the GKR layers, the input
/// identity and the y tie.
pub fn error_count(n: u32, params: @RequantParams) -> u128 {
    let v = instance_vars(n, params);
    let lookups = pow2_u128(*v[0]) + pow2_u128(*v[2]) + pow2_u128(*v[1]) + pow2_u128(*v[3]);
    let mut layers = 0;
    for x in v {
        layers = core::cmp::max(layers, *x);
    }
    let per_layer: u128 = v.len().into() + 1;
    let mut gkr = 0;
    for j in 0..layers {
        gkr += 3 * j.into() + per_layer;
    }
    lookups + gkr + 2 * n.into()
}
