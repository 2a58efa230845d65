"""The head-batched product sum-check both A·Ṽ and QKᵀ use (docs/layers/mha.md, steps 2 and 4).

A table over (head x, inner y) holds f and g; the claim is Σ_{x,y} b(x, y)·f(x, y)·g(x, y)
with b(x, y) = eq(x, r_head): one sum-check over all heads, and b̃ = eq(·, r_head) at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.mha.proof import HeadProductStep
from cairn.prover.layers.mha.structured import head_select_mle
from cairn.prover.mle import eq_table
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.sumcheck.verifier import verify_sumcheck

DEGREE = 3


def head_select_table(r_head: Sequence[QM31], size: int) -> QM31Array:
    """b over `size` entries: eq(x, r_head) repeated over each head's block of inner indices."""
    eq = eq_table(r_head)
    return QM31Array(np.repeat(eq.data, size // len(eq), axis=0))


def prove_head_product(
    r_head: Sequence[QM31], f: QM31Array, g: QM31Array, channel: Channel
) -> tuple[HeadProductStep, list[QM31]]:
    """Sum-check of b·f·g; f and g at the final point are sent (absorbed) and the point returned."""
    b = head_select_table(r_head, len(f))
    sumcheck, point, finals = prove_sumcheck([b, f, g], [Product((0, 1, 2))], channel)
    channel.mix_felts(finals[1:])
    return HeadProductStep(sumcheck, finals[1], finals[2]), point


def verify_head_product(
    step: HeadProductStep,
    claim: QM31,
    r_head: Sequence[QM31],
    inner_vars: int,
    channel: Channel,
    check: str,
) -> list[QM31]:
    """The mirror: the final claim must be b̃(r)·f·g with b̃ in closed form; raises `check`."""
    point, final = verify_sumcheck(claim, step.sumcheck, len(r_head) + inner_vars, DEGREE, channel)
    if final != head_select_mle(r_head, point) * step.left * step.right:
        raise VerificationError(check, "b~(r)·f(r)·g(r) differs from the sum-check's final claim")
    channel.mix_felts([step.left, step.right])
    return point
