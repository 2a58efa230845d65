//! The range proof's soundness rule (mirror of prover/layers/range/model.py `error_terms` and
//! the `range.params` shortfall; docs/layers/range.md, "Soundness").
//!
//! Python refuses a declaration whose witness fits no stack or whose terms, a count N over
//! |F| = p^4, total less than 96 bits: N ≥ 2^28.

use crate::softmax::soundness::{REFUSED_COUNT, pow2_u128};
use super::relations::{DeclaredTrait, Declared, columns, instance_vars, tables, witness_layout};

/// LogUp per table (lookups + rows), the GKR layers (Σ_j (3j + I + 1)), each split weight's
/// limb identity (its variables) and each column-sums identity (the sums' variables).
pub fn error_count(weights: Span<Declared>) -> u128 {
    let cols = columns(weights);
    let vars = instance_vars(cols, tables(cols));
    let (mut lookups, mut layers) = (0, 0);
    for v in vars {
        lookups += pow2_u128(*v);
        layers = core::cmp::max(layers, *v);
    }
    let per_layer: u128 = vars.len().into() + 1;
    let mut gkr = 0;
    for j in 0..layers {
        gkr += 3 * j.into() + per_layer;
    }
    let mut rest: u128 = 0;
    for d in weights {
        if d.split() {
            rest += d.n_vars().into();
        }
        if *d.summed {
            rest += crate::walk::tensor::tensor_vars(d.sums_shape()).into();
        }
    }
    lookups + gkr + rest
}

/// Whether Python's `shortfall` names a problem.
pub fn security_problem(weights: Span<Declared>) -> bool {
    witness_layout(weights).is_none() || error_count(weights) >= REFUSED_COUNT
}
