"""Merkle commitment to the rows of an M31 matrix (prover side): commit, then open."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.merkle.hashers import MerkleHash
from cairn.prover.merkle.proof import MerkleOpening, check_indices, sibling_plan
from cairn.prover.mle import log2_exact

REBUILT_LEVELS = 4
"""The lowest levels a tree does not keep (they are most of its digests): an opening rebuilds
them from the rows, for the 2^REBUILT_LEVELS leaves under each opened path only."""


@dataclass(frozen=True)
class MerkleTree:
    """A tree's rows (the leaf values) and its levels from `low` up to the root (root last);
    the levels below `low` are rebuilt for the paths an opening needs."""

    hash: MerkleHash
    rows: np.ndarray
    levels: list[np.ndarray]
    low: int

    @staticmethod
    def commit(rows: np.ndarray, hash_: MerkleHash) -> MerkleTree:
        """Hash every row (2^d rows of canonical M31 values), then every level, natively."""
        depth = log2_exact(rows.shape[0])
        low = min(REBUILT_LEVELS, depth)
        level = hash_.hash_leaves(rows)
        for _ in range(low):
            level = hash_.hash_nodes(level)
        levels = [level]
        while len(levels[-1]) > 1:
            levels.append(hash_.hash_nodes(levels[-1]))
        return MerkleTree(hash_, rows, levels, low)

    @property
    def root(self) -> int:
        return self.hash.to_int(self.levels[-1][0])

    @property
    def depth(self) -> int:
        return self.low + len(self.levels) - 1

    def open(self, leaf_indices: np.ndarray) -> MerkleOpening:
        """The rows at `leaf_indices` (sorted, distinct) and the siblings their paths need."""
        check_indices(leaf_indices, self.depth)
        plan = sibling_plan(leaf_indices, self.depth)
        rebuilt, blocks = self._rebuild(leaf_indices)
        siblings = []
        for lvl, idx in enumerate(plan):
            if lvl < self.low:  # rebuilt level: node i sits in block i >> (low − lvl)
                width = 1 << (self.low - lvl)
                at = np.searchsorted(blocks, idx // width) * width + idx % width
                digests = rebuilt[lvl][at]
            else:
                digests = self.levels[lvl - self.low][idx]
            siblings += [self.hash.to_int(d) for d in digests]
        return MerkleOpening(self.rows[leaf_indices].tolist(), siblings)

    def _rebuild(self, leaf_indices: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """The levels below `low` over the blocks of 2^low leaves holding the opened ones:
        per level, the blocks' nodes side by side (in block order), and the blocks."""
        blocks = np.unique(np.asarray(leaf_indices) >> self.low)
        if self.low == 0:
            return [], blocks
        width = 1 << self.low
        leaves = (blocks[:, None] * width + np.arange(width)).ravel()
        rebuilt = [self.hash.hash_leaves(self.rows[leaves])]
        for _ in range(self.low - 1):
            rebuilt.append(self.hash.hash_nodes(rebuilt[-1]))
        return rebuilt, blocks
