"""Which leaves each query opens, for the polynomials' trees and the folding layers.

All of it follows from the query positions (drawn from the transcript) and public sizes,
so prover and verifier compute the same plan; the proof carries no index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.pcs.params import PcsParams, fold_groups, poly_log_leaf


@dataclass(frozen=True)
class LeafMap:
    """For positions in a word cut into leaves of 2^log_leaf values: the distinct leaves to
    open (sorted), and per query its leaf's row among them and its offset in the leaf."""

    leaves: np.ndarray
    rows: np.ndarray
    offsets: np.ndarray

    @staticmethod
    def of(positions: np.ndarray, log_leaf: int) -> LeafMap:
        leaf = positions >> log_leaf
        leaves = np.unique(leaf)
        return LeafMap(leaves, np.searchsorted(leaves, leaf), positions & ((1 << log_leaf) - 1))


@dataclass(frozen=True)
class BatchLayout:
    """The folding structure of one batch: groups of levels, where each polynomial enters.

    Level t is the word after t folds (log size n − t + β). Polynomial j (n_j variables)
    is added at level t_j = n − n_j, inside group (s, e] with s < t_j <= e (or the first
    group when t_j = 0). The word at each group start s > 0 is a committed layer.
    """

    n_vars: int
    groups: list[tuple[int, int]]
    levels: list[int]
    poly_groups: list[int]

    @staticmethod
    def of(poly_vars: list[int], log_arity: int) -> BatchLayout:
        n = max(poly_vars)
        groups = fold_groups(n, log_arity)
        levels = [n - nj for nj in poly_vars]
        poly_groups = [
            next(g for g, (s, e) in enumerate(groups) if s < t <= e or t == s == 0) for t in levels
        ]
        return BatchLayout(n, groups, levels, poly_groups)

    def entering(self, t: int) -> list[int]:
        """The polynomials added to the word at level t."""
        return [j for j, tj in enumerate(self.levels) if tj == t]

    def group_polys(self, g: int) -> list[int]:
        """The polynomials added inside group g (at level 0 for the first group), in order:
        the trees the group opens besides its layer."""
        return [j for j, pg in enumerate(self.poly_groups) if pg == g]

    def group_trees(self, g: int) -> int:
        """The trees group g opens: its layer (after the first group), then its polynomials.
        A session may stop after any of them (docs/cairo-verifier.md, "Sessions")."""
        return (g > 0) + len(self.group_polys(g))

    def tree_position(self, done: int) -> tuple[int, int]:
        """(group, trees of it opened) after the first `done` trees in calldata order."""
        g = 0
        while g < len(self.groups) and done >= self.group_trees(g):
            done -= self.group_trees(g)
            g += 1
        return g, done

    def poly_leaf_map(self, j: int, params: PcsParams, queries: np.ndarray) -> LeafMap:
        """Polynomial j's leaves: the query's position at level t_j (the block folding into
        the query's position at its group end starts at that offset, rounded down)."""
        log_leaf = poly_log_leaf(self.n_vars - self.levels[j], params)
        return LeafMap.of(queries >> self.levels[j], log_leaf)

    def layer_leaf_map(self, g: int, queries: np.ndarray) -> LeafMap:
        """Layer at the start s of group g (leaves of 2^(e − s) values)."""
        s, e = self.groups[g]
        return LeafMap.of(queries >> s, e - s)
