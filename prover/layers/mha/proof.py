"""The MHA proof: five sum-checks, each with the values the prover sends at its end
(docs/layers/mha.md). Nothing here is an activation; every value is one MLE evaluation at a
point the verifier drew."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof


@dataclass(frozen=True)
class OneFactorStep:
    """A sum-check whose summand has one unknown MLE (the rest the verifier evaluates), and
    that MLE's value at the final point: Ô(r_s, ·) for unpadding, QK̂ for masking."""

    sumcheck: SumcheckProof
    value: QM31


@dataclass(frozen=True)
class HeadProductStep:
    """A head-batched sum-check of b·f·g and f, g at its final point: (Â, Ṽ) for A·Ṽ,
    (Q̂, K̂) for QKᵀ."""

    sumcheck: SumcheckProof
    left: QM31
    right: QM31


@dataclass(frozen=True)
class PadStep:
    """The λ-batched padding sum-check and Q, K, V at its final point (the input claims)."""

    sumcheck: SumcheckProof
    q: QM31
    k: QM31
    v: QM31


@dataclass(frozen=True)
class MhaProof:
    unpad: OneFactorStep
    attend: HeadProductStep
    mask: OneFactorStep
    heads: HeadProductStep
    pad: PadStep
