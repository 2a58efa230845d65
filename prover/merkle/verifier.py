"""Merkle verifier: the mirror of MerkleTree.open, one level at a time."""

from __future__ import annotations

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import P
from cairn.prover.merkle.hashers import MerkleHash
from cairn.prover.merkle.proof import MerkleOpening, check_indices, sibling_plan


def verify_opening(
    hash_: MerkleHash,
    root: int,
    depth: int,
    width: int,
    leaf_indices: np.ndarray,
    opening: MerkleOpening,
) -> np.ndarray:
    """Check `opening` against `root`; returns the opened rows as a (k, width) int64 array.

    Every count comes from the caller (depth, width, indices), never from the opening.
    """
    check_indices(leaf_indices, depth)
    if len(opening.leaves) != len(leaf_indices):
        raise VerificationError(
            "merkle.leaf_count", f"{len(opening.leaves)} rows for {len(leaf_indices)} leaves"
        )
    if any(len(row) != width for row in opening.leaves):
        raise VerificationError("merkle.leaf_width", f"a row does not hold {width} values")
    rows = np.array(opening.leaves, dtype=object).reshape(len(leaf_indices), width)
    if not all(isinstance(v, int) and 0 <= v < P for v in rows.flat):
        raise VerificationError("merkle.value", "a leaf value is not a canonical M31")
    rows = rows.astype(np.int64)
    plan = sibling_plan(leaf_indices, depth)
    if len(opening.siblings) != sum(len(idx) for idx in plan):
        raise VerificationError(
            "merkle.sibling_count",
            f"{len(opening.siblings)} siblings, the paths need {sum(len(i) for i in plan)}",
        )
    if not all(isinstance(s, int) and hash_.is_digest(s) for s in opening.siblings):
        raise VerificationError("merkle.digest", f"a sibling is not a {hash_.name} digest")
    known = np.asarray(leaf_indices, dtype=np.int64)
    nodes = hash_.hash_leaves(rows)
    consumed = 0
    for missing in plan:
        supplied = hash_.digests_from_ints(opening.siblings[consumed : consumed + len(missing)])
        consumed += len(missing)
        indices = np.concatenate([known, missing])
        order = np.argsort(indices, kind="stable")
        nodes = hash_.hash_nodes(np.concatenate([nodes, supplied])[order])
        known = indices[order][0::2] >> 1
    if hash_.to_int(nodes[0]) != root:
        raise VerificationError("merkle.path", "the opened leaves do not hash to the root")
    return rows
