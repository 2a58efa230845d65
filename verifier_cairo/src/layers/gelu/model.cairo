//! Gelu's statement check (mirror of prover/layers/gelu/model.py `check`): dims (rows, cols,
//! f_in, b_in, f_out, b_out), x and y of rows × cols, no weights (`statement.shape`, in the
//! encoder class); then, in the lookup class, the parameters (a pinned table) and soundness
//! (`gelu.params`) and the witness stacks (`gelu.commitment`). No tensor value is read: the
//! lookup proves x within b_in bits, and y's bound is the table's clamp.

use crate::lookups::contract::{LookupClass, LookupClassTrait};
use crate::pcs::stack::witness_hash;
use crate::walk::statement::{PublicStatement, expect_shapes};
use crate::walk::tensor::{Bound, TensorCommitment, TensorsTrait, at_most};
use super::params::{GeluParamsTrait, entry_vars};
use super::soundness::{error_count, security_problem};
use super::verifier::check_commitments;

/// The encoder class's half: shapes, then the lookup class's `gelu_check`; returns the
/// layer's error count over |F|.
pub fn check(st: @PublicStatement, lookup: LookupClass) -> u128 {
    let dims = *st.dims;
    assert(dims.len() == 6, 'statement.shape');
    let (rows, cols) = (*dims[0], *dims[1]);
    assert(rows >= 1 && cols >= 1, 'statement.shape');
    let shape = array![rows, cols].span();
    expect_shapes(*st.inputs, array!['x'].span(), array![shape].span());
    expect_shapes(*st.outputs, array!['y'].span(), array![shape].span());
    expect_shapes(*st.weights, array![].span(), array![].span());
    let witness = *st.witness;
    lookup.gelu_check(dims, witness.names, witness.commitments())
}

/// The lookup class's half, in Python's order after the shapes; returns the error count.
pub fn check_params(
    dims: Span<u32>, names: Span<felt252>, commitments: Span<TensorCommitment>,
) -> u128 {
    let params = GeluParamsTrait::from_dims(dims);
    let n = entry_vars(dims);
    assert(!params.problem() && !security_problem(n, @params), 'gelu.params');
    check_commitments(n, @params, names, commitments);
    error_count(n, @params)
}

/// |y| ≤ 2^(b_out−1) − 1 whatever x is (every table entry is clamped to it), after `check`.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    let b_out = *(*st.dims)[5];
    array![at_most(Some(crate::pcs::queries::pow2(b_out - 1).into() - 1))].span()
}

/// The pinned table of the statement's parameters, after `check`.
pub fn tables(st: @PublicStatement) -> Span<(felt252, TensorCommitment)> {
    array![GeluParamsTrait::from_dims(*st.dims).table(witness_hash(st.witness))].span()
}
