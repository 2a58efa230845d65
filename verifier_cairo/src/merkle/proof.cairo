//! The leaf indices a multi-leaf opening may open (mirror of prover/merkle/proof.py's
//! `check_indices`). Which siblings it supplies, Python's `sibling_plan`, is followed by
//! `verifier::verify_path` as it hashes, level by level.

/// The plan needs sorted, distinct leaf indices below 2^depth, at least one. They come from the
/// verifier itself (Python raises ValueError), so a failure is a bug in the caller.
pub fn check_indices(leaf_indices: Span<u32>, depth: u32) {
    assert(!leaf_indices.is_empty() && depth < 32, 'merkle.indices');
    let mut previous: Option<u32> = None;
    for index in leaf_indices {
        if let Some(p) = previous {
            assert(p < *index, 'merkle.indices');
        }
        previous = Some(*index);
    }
    let n_leaves: u64 = core::num::traits::Pow::pow(2_u64, depth);
    assert((*leaf_indices[leaf_indices.len() - 1]).into() < n_leaves, 'merkle.indices');
}
