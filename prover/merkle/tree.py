"""Merkle commitment to the rows of an M31 matrix (prover side): commit, then open."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.merkle.hashers import MerkleHash
from cairn.prover.merkle.proof import MerkleOpening, check_indices, sibling_plan
from cairn.prover.mle import log2_exact


@dataclass(frozen=True)
class MerkleTree:
    """All levels of the tree, leaf digests first, root last; `rows` are the leaf values."""

    hash: MerkleHash
    rows: np.ndarray
    levels: list[np.ndarray]

    @staticmethod
    def commit(rows: np.ndarray, hash_: MerkleHash) -> MerkleTree:
        """Hash every row (2^d rows of canonical M31 values), then every level, natively."""
        log2_exact(rows.shape[0])
        levels = [hash_.hash_leaves(rows)]
        while len(levels[-1]) > 1:
            levels.append(hash_.hash_nodes(levels[-1]))
        return MerkleTree(hash_, rows, levels)

    @property
    def root(self) -> int:
        return self.hash.to_int(self.levels[-1][0])

    @property
    def depth(self) -> int:
        return len(self.levels) - 1

    def open(self, leaf_indices: np.ndarray) -> MerkleOpening:
        """The rows at `leaf_indices` (sorted, distinct) and the siblings their paths need."""
        check_indices(leaf_indices, self.depth)
        plan = sibling_plan(leaf_indices, self.depth)
        siblings = [
            self.hash.to_int(d) for lvl, idx in enumerate(plan) for d in self.levels[lvl][idx]
        ]
        return MerkleOpening(self.rows[leaf_indices].tolist(), siblings)
