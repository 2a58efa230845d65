"""The sum-check proof: one list of sent coefficients [c0, c2, ..., cd] per round."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31

MAX_DEGREE = 4


@dataclass(frozen=True)
class SumcheckProof:
    rounds: list[list[QM31]]


def linear_coefficient(claim: QM31, sent: list[QM31]) -> QM31:
    """c1 from g(0) + g(1) = claim, where sent = [c0, c2, ..., cd]."""
    c1 = claim - sent[0] - sent[0]
    for c in sent[1:]:
        c1 = c1 - c
    return c1


def evaluate_round(claim: QM31, sent: list[QM31], r: QM31) -> QM31:
    """g(r) by Horner over the full coefficient list [c0, c1, c2, ..., cd]."""
    coeffs = [sent[0], linear_coefficient(claim, sent), *sent[1:]]
    acc = QM31.zero()
    for c in reversed(coeffs):
        acc = acc * r + c
    return acc
