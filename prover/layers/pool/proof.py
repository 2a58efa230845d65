"""The proof: nothing beyond the walk's settlement (docs/layers/pool.md). The row sum of a
multilinear X̃ is 2^k·X̃(½, …, ½, ·), so the output claim turns into the input claim exactly."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PoolProof:
    pass
