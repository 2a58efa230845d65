"""Closed-form MLEs of the requant tables the verifier evaluates itself, in O(t) for a table
of 2^t rows (MSB-first points, as every MLE here). tests/test_layer_requant.py compares each
with the brute-force MLE of its table under hypothesis."""

from __future__ import annotations

from collections.abc import Sequence

from cairn.prover.fields.qm31 import QM31
from cairn.prover.mle import prefix_mask
from cairn.prover.softmax.structured import index_mle


def prefix_index_sum(point: Sequence[QM31], a: int) -> QM31:
    """Σ_{i<a} eq(point, i)·i: the MLE of i·[i < a] on {0,1}^t.

    {i < a} is the union over the 1-bits j of a of the subcubes "a's bits before j, then 0,
    then anything"; on such a subcube i = (a's bits before j)·2^(t−j) + (the free low bits),
    and Σ eq over free bits of their value is the index MLE of the suffix point."""
    t = len(point)
    if a <= 0:
        return QM31.zero()
    if a >= 1 << t:
        return index_mle(point)
    one = QM31.one()
    suffix = [QM31.zero()] * (t + 1)  # suffix[j] = index MLE of point[j:]
    for j in range(t - 1, -1, -1):
        suffix[j] = suffix[j + 1] + point[j] * (1 << (t - 1 - j))
    total, prefix = QM31.zero(), one
    for j, r in enumerate(point):
        if (a >> (t - 1 - j)) & 1:
            high = (a >> (t - j)) << (t - j)
            total = total + prefix * (one - r) * (suffix[j + 1] + QM31.from_int(high))
            prefix = prefix * r
        else:
            prefix = prefix * (one - r)
    return total


def clamp_mle(point: Sequence[QM31], offset: int, lo: int, hi: int) -> QM31:
    """The MLE of i ↦ clamp(i − offset, lo, hi) on {0,1}^t (lo ≤ hi): lo below a = lo + offset,
    i − offset on [a, b) with b = hi + offset + 1, hi from b on, so
    lo·P(a) + (I(b) − I(a)) − offset·(P(b) − P(a)) + hi·(1 − P(b)),
    with P(c) = Σ_{i<c} eq (prefix_mask) and I(c) = Σ_{i<c} eq·i."""
    t = len(point)

    def mask(c: int) -> QM31:
        return QM31.zero() if c <= 0 else prefix_mask(point, min(c, 1 << t))

    a, b = lo + offset, hi + offset + 1
    p_a, p_b = mask(a), mask(b)
    window = prefix_index_sum(point, b) - prefix_index_sum(point, a)
    return (
        p_a * QM31.from_int(lo)
        + window
        - (p_b - p_a) * QM31.from_int(offset)
        + (QM31.one() - p_b) * QM31.from_int(hi)
    )
