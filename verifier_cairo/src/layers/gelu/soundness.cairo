//! GELU's soundness rule (mirror of prover/layers/gelu/soundness.py; docs/layers/gelu.md,
//! "Soundness").
//!
//! Python refuses a configuration whose witness fits no stack (y of 2^n entries with n > 22)
//! or whose error terms, counts N over |F| = p^4, total less than 96 bits (N ≥ 2^28). Once the
//! layout fits, n ≤ 22 and b_in = 15 (a pinned table), so the LogUp term is at most 2^22 + 2^15,
//! the GKR term Σ_{j<22} (3j + 3) = 759 and the tie term 22: N < 2^23, never refused. The
//! layout is then the whole rule.

use crate::softmax::soundness::pow2_u128;
use super::params::GeluParams;
use super::relations::{instance_vars, witness_layout};

/// Whether Python's `security_problem` names a problem for 2^n entries.
pub fn security_problem(n: u32, params: @GeluParams) -> bool {
    witness_layout(n, params).is_none()
}

/// Python's `error_terms` as one count over |F| = p^4: the lookup's LogUp, the GKR layers and
/// the y tie at the output point.
pub fn error_count(n: u32, params: @GeluParams) -> u128 {
    let v = instance_vars(n, params);
    let lookups = pow2_u128(*v[0]) + pow2_u128(*v[1]);
    let layers = core::cmp::max(*v[0], *v[1]);
    let per_layer: u128 = v.len().into() + 1;
    let mut gkr = 0;
    for j in 0..layers {
        gkr += 3 * j.into() + per_layer;
    }
    lookups + gkr + n.into()
}
