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
///
/// A known node is kept with a leaf of its subtree, whose bit `level` is the node's parity (one
/// bitwise call), and its index as a felt, halved exactly into its parent's: no division, which
/// costs range checks (docs/cairo-verifier.md, "Gas-relevant choices").
pub fn verify_path<D, impl H: MerkleHasher<D>, +Copy<D>, +Drop<D>, +PartialEq<D>>(
    root: D, depth: u32, leaf_indices: Span<u32>, leaf_digests: Span<D>, siblings: Span<felt252>,
) {
    let mut supplied = siblings;
    let mut malformed = false;
    let mut leaves = array![];
    let mut indices = leaf_indices;
    let mut digests = leaf_digests;
    while let Some(index) = indices.pop_front() {
        leaves.append((*index, (*index).into(), *digests.pop_front().unwrap()));
    }
    let mut nodes = leaves.span();
    let mut bit: u32 = 1;
    for _ in 0..depth {
        let mut parents = array![];
        let mut next = nodes.pop_front();
        while let Some(node) = next {
            let (leaf, index, digest): (u32, felt252, D) = *node;
            next = nodes.pop_front();
            let odd = leaf & bit != 0;
            let parent = if odd {
                H::hash_node(next_sibling::<D>(ref supplied, ref malformed, digest), digest)
            } else {
                match next {
                    Some(partner) => {
                        let (_, partner_index, partner_digest): (u32, felt252, D) = *partner;
                        if partner_index == index + 1 {
                            next = nodes.pop_front();
                            H::hash_node(digest, partner_digest)
                        } else {
                            H::hash_node(
                                digest, next_sibling::<D>(ref supplied, ref malformed, digest),
                            )
                        }
                    },
                    None => H::hash_node(
                        digest, next_sibling::<D>(ref supplied, ref malformed, digest),
                    ),
                }
            };
            let low: felt252 = if odd {
                1
            } else {
                0
            };
            parents.append((leaf, (index - low) * HALF, parent));
        }
        nodes = parents.span();
        bit *= 2;
    }
    assert(supplied.is_empty(), 'merkle.sibling_count');
    assert(!malformed, 'merkle.digest');
    let (_, _, top) = *nodes[0];
    assert(top == root, 'merkle.path');
}

/// 1/2 mod the Stark prime: an even felt times it is its exact half.
const HALF: felt252 = 0x400000000000008800000000000000000000000000000000000000000000001;

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
