//! LayerNorm's statement check (mirror of prover/layers/layernorm/model.py `check`): dims (s,
//! d, w, R, E, k_n, b_n, g, k_z, b_z), h and y of s × d, the statistics s1 (s) and s2 (s × 3),
//! β and γ of d (`statement.shape`, in the encoder class); then, in the lookup class, the
//! parameter rules (`layernorm.params`), h within its limbs' range and |γ| ≤ 2^g − 1 where
//! known, the relations' no-wrap bounds that read γ or β (`statement.range`), soundness
//! (`layernorm.params`) and the witness stacks (`layernorm.commitment`).

use crate::layers::requant::params::RequantParamsTrait;
use crate::lookups::contract::{LookupClass, LookupClassTrait};
use crate::mle::log2_padded;
use crate::ranges::HALF;
use crate::walk::statement::{PublicStatement, expect_shapes, tensor};
use crate::walk::tensor::{Known, PublicTensor, PublicTensorTrait, TensorCommitment, TensorsTrait, signed};
use super::params::LayerNormParamsTrait;
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
            let b: i64 = core::cmp::min(bound, HALF + 1).try_into().unwrap();
            Some((b, b))
        },
        Known::Nothing => None,
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

/// s1 ≤ d·2^(2w−1), every limb sum ≤ d·(2^w − 1)²; y's bounds read β, which a graph on chain
/// always commits (public weights are `calldata.offchain`): y has none there.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<u128>> {
    let params = LayerNormParamsTrait::from_dims(*st.dims);
    array![Some(params.row_sum_bound()), Some(params.limb_sum_bound()), None].span()
}
