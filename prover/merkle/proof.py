"""A multi-leaf Merkle opening and the order its siblings travel in.

Which nodes an opening must supply depends only on the opened leaf indices, so prover and
verifier walk the same plan: level by level from the leaves, at each level the siblings of
the known nodes that are not known themselves, in increasing index order. A node shared by
several paths is therefore sent once, and never one the verifier can compute.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MerkleOpening:
    """The opened rows (in increasing leaf index) and the missing siblings, in plan order."""

    leaves: list[list[int]]
    siblings: list[int]


def sibling_plan(leaf_indices: np.ndarray, depth: int) -> list[np.ndarray]:
    """Per level, leaves first, the sorted indices of the nodes the opening supplies.

    `leaf_indices` must be sorted, distinct and below 2^depth.
    """
    known = np.asarray(leaf_indices, dtype=np.int64)
    plan = []
    for _ in range(depth):
        plan.append(np.setdiff1d(known ^ 1, known))
        known = np.unique(known >> 1)
    return plan


def check_indices(leaf_indices: np.ndarray, depth: int) -> None:
    """Programming-error guard: the plan needs sorted, distinct, in-range indices (at least one)."""
    idx = np.asarray(leaf_indices)
    if idx.size == 0 or np.any(np.diff(idx) <= 0) or idx[0] < 0 or idx[-1] >= 1 << depth:
        raise ValueError("leaf indices must be non-empty, sorted, distinct and below 2^depth")
