//! Which siblings a multi-leaf opening supplies (mirror of prover/merkle/proof.py). They depend
//! only on the opened leaf indices: level by level from the leaves, the siblings of the known
//! nodes that are not known themselves, in increasing index order.

/// Per level, leaves first, the sorted indices of the nodes the opening supplies.
/// `leaf_indices` must pass `check_indices`.
pub fn sibling_plan(leaf_indices: Span<u32>, depth: u32) -> Span<Span<u32>> {
    let mut known = leaf_indices;
    let mut plan = array![];
    for _ in 0..depth {
        let (missing, parents) = next_level(known);
        plan.append(missing);
        known = parents;
    }
    plan.span()
}

/// One level of the plan: the siblings of `known` (sorted) that are not in it, and the parents
/// of `known`, sorted and distinct.
fn next_level(known: Span<u32>) -> (Span<u32>, Span<u32>) {
    let mut known = known;
    let mut missing = array![];
    let mut parents = array![];
    while let Some(index) = known.pop_front() {
        let index = *index;
        if index % 2 == 1 {
            missing.append(index - 1);
        } else if known.get(0).map(|next| *next.unbox()) == Some(index + 1) {
            known.pop_front().unwrap();
        } else {
            missing.append(index + 1);
        }
        parents.append(index / 2);
    }
    (missing.span(), parents.span())
}

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
