//! Requant's statement check (mirror of prover/layers/requant/model.py `check`): dims (rows,
//! cols, M, k, b, a, w), x and y of rows × cols, no weights (`statement.shape`, in the
//! attention class); then, in the lookup class, the parameter rules (`requant.params`), the
//! no-wrap bound A·M + 2^(k−1) < 2^30 and x public with |x| ≤ A (`statement.range`), the
//! table and soundness rules (`requant.params`) and the witness stacks (`requant.commitment`).
//! The relations' own no-wrap bounds (`expect_ranges`) then hold already: |x·M + 2^(k−1)| ≤
//! A·M + 2^(k−1) < 2^30 and |y| ≤ 2^(b−1) − 1 < 2^29.

use crate::lookups::contract::{LookupClass, LookupClassTrait};
use crate::mle::log2_padded;
use crate::walk::statement::{PublicStatement, expect_shapes, tensor};
use crate::walk::tensor::{Bound, PublicTensorTrait, TensorCommitment, TensorsTrait, at_most};
use super::params::{RequantParamsTrait};
use super::soundness::{error_count, security_problem};
use super::verifier::check_commitments;

/// The attention class's half: shapes, then the lookup class's `requant_check` with max|x|
/// (None when x is committed); returns the layer's error count over |F|.
pub fn check(st: @PublicStatement, lookup: LookupClass) -> u128 {
    let dims = *st.dims;
    assert(dims.len() == 7, 'statement.shape');
    let (rows, cols) = (*dims[0], *dims[1]);
    assert(rows >= 1 && cols >= 1, 'statement.shape');
    let shape = array![rows, cols].span();
    expect_shapes(*st.inputs, array!['x'].span(), array![shape].span());
    expect_shapes(*st.outputs, array!['y'].span(), array![shape].span());
    expect_shapes(*st.weights, array![].span(), array![].span());
    let x = tensor(*st.inputs, 'x');
    let x_max = if x.commitment.is_none() {
        Some(x.max_magnitude())
    } else {
        None
    };
    let witness = *st.witness;
    lookup.requant_check(dims, x_max, witness.names, witness.commitments())
}

/// |y| ≤ 2^(b−1) − 1 whatever x is (the CLAMP table): the bound on y, after `check`.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    let b = *(*st.dims)[4];
    array![at_most(Some(crate::pcs::queries::pow2(b - 1).into() - 1))].span()
}

/// The lookup class's half, in Python's order after the shapes.
/// Returns the layer's error count over |F| (`soundness::error_count`).
pub fn check_params(
    dims: Span<u32>, x_max: Option<u128>, names: Span<felt252>, commitments: Span<TensorCommitment>,
) -> u128 {
    let params = RequantParamsTrait::from_dims(dims);
    assert(!params.problem(), 'requant.params');
    assert(!params.range_problem(), 'statement.range');
    match x_max {
        Some(largest) => assert(largest <= params.a(), 'statement.range'),
        None => core::panic_with_felt252('statement.range'),
    }
    let n = entry_vars(dims);
    assert(!params.table_problem() && !security_problem(n, @params), 'requant.params');
    check_commitments(n, @params, names, commitments);
    error_count(n, @params)
}

/// n: the padded input has 2^n entries.
pub fn entry_vars(dims: Span<u32>) -> u32 {
    log2_padded(*dims[0]) + log2_padded(*dims[1])
}
