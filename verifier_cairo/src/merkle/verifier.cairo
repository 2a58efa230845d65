//! Merkle verifier (mirror of prover/merkle/verifier.py): the same checks in the same order,
//! so an opening with several faults is refused with the same name on both sides.

use crate::fields::m31::P;
use super::hashers::MerkleHasher;
use super::proof::check_indices;

/// Checks an opening of the leaves `leaf_indices` of a tree of `depth` levels over rows of
/// `width` values against `root`; returns the opened rows (canonical M31 values). `leaves` are
/// the rows in increasing leaf index, `siblings` the supplied digests in plan order, in calldata
/// form (docs/merkle.md, hashers.cairo). Every count comes from the caller, never the opening.
pub fn verify_opening<D, impl H: MerkleHasher<D>, +Copy<D>, +Drop<D>, +PartialEq<D>>(
    root: D,
    depth: u32,
    width: u32,
    leaf_indices: Span<u32>,
    leaves: Span<Span<felt252>>,
    siblings: Span<felt252>,
) -> Span<Span<u32>> {
    check_indices(leaf_indices, depth);
    assert(leaves.len() == leaf_indices.len(), 'merkle.leaf_count');
    for row in leaves {
        assert(row.len() == width, 'merkle.leaf_width');
    }
    let rows = canonical_rows(leaves);
    let mut digests = array![];
    for row in rows {
        digests.append(H::hash_leaf(*row));
    }
    verify_path(root, depth, leaf_indices, digests.span(), siblings);
    rows
}

/// The part of `verify_opening` after the leaves are hashed: checks the siblings against the
/// leaves `leaf_indices` need (which the caller checked with `check_indices`, one digest per
/// index) and the recomputed root against `root`. The PCS calls it directly, its leaves being
/// hashed from their calldata words.
///
/// One pass, level by level from the leaves: the pairs (2k, 2k + 1) of the known nodes are
/// hashed, a node without its partner taking the next supplied sibling, read from its calldata
/// felts as it is needed (the order Python's `sibling_plan` sends them in). Python's order of
/// checks is kept by deciding at the end: siblings that run out or are left over are
/// `merkle.sibling_count` whatever else is wrong; a sibling that encodes no digest is remembered
/// and named only when the count is right (`merkle.digest`); then `merkle.path`.
pub fn verify_path<D, impl H: MerkleHasher<D>, +Copy<D>, +Drop<D>, +PartialEq<D>>(
    root: D, depth: u32, leaf_indices: Span<u32>, leaf_digests: Span<D>, siblings: Span<felt252>,
) {
    let mut supplied = siblings;
    let mut malformed = false;
    let mut indices = leaf_indices;
    let mut nodes = leaf_digests;
    for _ in 0..depth {
        let mut parents = array![];
        let mut parent_digests = array![];
        while let Some(index) = indices.pop_front() {
            let index = *index;
            let node = *nodes.pop_front().unwrap();
            let (parent_index, odd) = DivRem::div_rem(index, 2);
            let parent = if odd == 1 {
                H::hash_node(next_sibling::<D>(ref supplied, ref malformed, node), node)
            } else if is_next(indices, index) {
                indices.pop_front().unwrap();
                H::hash_node(node, *nodes.pop_front().unwrap())
            } else {
                H::hash_node(node, next_sibling::<D>(ref supplied, ref malformed, node))
            };
            parents.append(parent_index);
            parent_digests.append(parent);
        }
        indices = parents.span();
        nodes = parent_digests.span();
    }
    assert(supplied.is_empty(), 'merkle.sibling_count');
    assert(!malformed, 'merkle.digest');
    assert(*nodes[0] == root, 'merkle.path');
}

/// The next supplied sibling (`merkle.sibling_count` when none is left); one that encodes no
/// digest sets `malformed` and stands in as `filler`, so the count can still be checked first.
fn next_sibling<D, impl H: MerkleHasher<D>, +Drop<D>>(
    ref supplied: Span<felt252>, ref malformed: bool, filler: D,
) -> D {
    match H::take_digest(ref supplied) {
        Some(Some(digest)) => digest,
        Some(None) => {
            malformed = true;
            filler
        },
        None => core::panic_with_felt252('merkle.sibling_count'),
    }
}

/// Whether the next index is `index + 1` (compared as felts: no overflow check).
fn is_next(indices: Span<u32>, index: u32) -> bool {
    match indices.get(0) {
        Some(next) => {
            let next: felt252 = (*next.unbox()).into();
            next == index.into() + 1
        },
        None => false,
    }
}

/// Every value an integer in [0, p): a limb equal to p would be a second encoding of 0 in the
/// Poseidon packing, and a larger one would spill into its neighbour.
fn canonical_rows(leaves: Span<Span<felt252>>) -> Span<Span<u32>> {
    let mut rows = array![];
    for leaf in leaves {
        let mut row = array![];
        for value in *leaf {
            let value: u32 = match (*value).try_into() {
                Some(v) => v,
                None => core::panic_with_felt252('merkle.value'),
            };
            assert(value < P, 'merkle.value');
            row.append(value);
        }
        rows.append(row.span());
    }
    rows.span()
}
