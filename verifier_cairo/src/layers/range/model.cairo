//! The range statement's check (mirror of prover/layers/range/model.py `check`): the dims'
//! declarations, no inputs, the summed weights' column sums as outputs, the weights as
//! declared (`statement.shape`), each column sum within what its column can sum to
//! (`range.params`, `statement.range`), soundness (`range.params`) and the witness stacks
//! (`range.commitment`).

use core::poseidon::poseidon_hash_span;
use crate::calldata::commitment_entry;
use crate::ranges::HALF;
use crate::walk::statement::{PublicStatement, expect_shapes, tensor};
use crate::walk::tensor::{Bound, TensorCommitment, TensorsTrait, signed};
use super::relations::{DeclaredTrait, parse_dims, sums_name, weight_name};
use super::soundness::{error_count, security_problem};
use super::verifier::check_commitments;

/// Returns the layer's error count over |F|.
pub fn check(st: @PublicStatement) -> u128 {
    let dims = *st.dims;
    let weights = parse_dims(dims);
    let (mut names, mut shapes, mut sums, mut sums_shapes) = (array![], array![], array![], array![]);
    let mut i = 0;
    for d in weights {
        names.append(weight_name(i));
        shapes.append(*d.shape);
        if *d.summed {
            sums.append(sums_name(i));
            sums_shapes.append(d.sums_shape());
        }
        i += 1;
    }
    expect_shapes(*st.inputs, array![].span(), array![].span());
    expect_shapes(*st.outputs, sums.span(), sums_shapes.span());
    expect_shapes(*st.weights, names.span(), shapes.span());
    let mut i = 0;
    for d in weights {
        if *d.summed {
            let bound = d.sums_bound();
            assert(bound <= HALF.try_into().unwrap(), 'range.params');
            for v in tensor(*st.outputs, sums_name(i)).values {
                let s = signed(*v);
                assert(s >= 0 && s <= bound.try_into().unwrap(), 'statement.range');
            }
        }
        i += 1;
    }
    assert(!security_problem(weights), 'range.params');
    let witness = *st.witness;
    check_commitments(weights, witness.names, witness.commitments());
    error_count(weights)
}

/// Per committed weight in name order, the key its declaration is certified under once the
/// walk's openings verify (docs/registry.md, "Certified declarations"): Poseidon of its registry
/// entry, bits·2 + summed, and its largest column sum (0 when not summed), which the model
/// walk's views read. A public weight certifies nothing.
pub fn certified(st: @PublicStatement) -> Span<felt252> {
    let mut keys = array![];
    let mut i = 0;
    for d in parse_dims(*st.dims) {
        let w = tensor(*st.weights, weight_name(i));
        if let Some(c) = w.commitment {
            let col_max = if *d.summed {
                Some(largest(tensor(*st.outputs, sums_name(i)).values))
            } else {
                None
            };
            keys.append(declaration_key(c, w.shape, *d.bits, col_max));
        }
        i += 1;
    }
    keys.span()
}

/// The largest of column sums `check` bounded to [0, (p−1)/2].
fn largest(sums: Span<felt252>) -> u32 {
    let mut top: u32 = 0;
    for v in sums {
        let s: u32 = signed(*v).try_into().unwrap();
        if s > top {
            top = s;
        }
    }
    top
}

/// The key of a committed weight's declaration (Python `cairn.deploy.certified`): Poseidon of
/// its registry entry, bits·2 + summed, and its largest column sum (0 when not summed).
pub fn declaration_key(
    c: TensorCommitment, shape: Span<u32>, bits: u32, col_max: Option<u32>,
) -> felt252 {
    let mut felts = commitment_entry(c.hash, c.root, shape);
    let (summed, top) = match col_max {
        Some(top) => (1, top),
        None => (0, 0),
    };
    felts.append((bits * 2 + summed).into());
    felts.append(top.into());
    poseidon_hash_span(felts.span())
}

/// No output is bounded by a relation (the sums are public, read by the views).
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    let mut out = array![];
    for _ in 0..(*st.outputs).names.len() {
        out.append(None);
    }
    out.span()
}
