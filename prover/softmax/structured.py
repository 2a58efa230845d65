"""Closed-form MLEs the softmax verifier evaluates itself, each in O(number of variables).

Points are MSB-first like every MLE here; tests/test_softmax_model.py compares each with the
MLE of the table it stands for, built by brute force.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.mha.structured import zeroifier_mle
from cairn.prover.mle import log2_exact, next_pow2, prefix_mask


def _split(point: Sequence[QM31], sizes: Sequence[int]) -> list[Sequence[QM31]]:
    """Cut a point into the coordinates of axes of the given (unpadded) sizes."""
    widths = [log2_exact(next_pow2(n)) for n in sizes]
    if sum(widths) != len(point):
        raise ValueError(f"a point of {len(point)} variables on axes of sizes {list(sizes)}")
    parts, start = [], 0
    for w in widths:
        parts.append(point[start : start + w])
        start += w
    return parts


def valid_entries_mle(h: int, s: int, causal: bool, point: Sequence[QM31]) -> QM31:
    """w̃ on (head, i, j): w = [head < h]·z[i, j], a product of functions of disjoint
    variables, so its MLE is prefix_mask(head, h)·z̃(i, j)."""
    head, i, j = _split(point, (h, s, s))
    return prefix_mask(head, h) * zeroifier_mle(s, causal, i, j)


def valid_rows_mle(h: int, s: int, point: Sequence[QM31]) -> QM31:
    """ṽ on (head, i): v = [head < h]·[i < s]."""
    head, i = _split(point, (h, s))
    return prefix_mask(head, h) * prefix_mask(i, s)


def index_mle(point: Sequence[QM31]) -> QM31:
    """The MLE of x ↦ x on {0,1}^k (MSB first): Σ_j 2^(k−1−j)·ρ_j, linear already."""
    total = QM31.zero()
    for r in point:
        total = total + total + r
    return total


def is_zero_mle(point: Sequence[QM31]) -> QM31:
    """The MLE of x ↦ [x = 0]: eq(point, 0) = Π_j (1 − ρ_j)."""
    one = QM31.one()
    acc = one
    for r in point:
        acc = acc * (one - r)
    return acc
