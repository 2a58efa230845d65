"""Same-poly accumulation prover (docs/claim-walk.md)."""

from __future__ import annotations

from collections.abc import Sequence

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.mle import eq_combination
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sumcheck.prover import Product, prove_sumcheck


def prove_sameply(
    table: QM31Array, claims: Sequence[Claim], channel: Channel
) -> tuple[SamePolyProof | None, Claim]:
    """One claim passes through unproved; two or more are merged by one sum-check."""
    if len(claims) == 1:
        return None, claims[0]
    channel.mix_felts([c.value for c in claims])
    coeffs = channel.draw_secure_felts(len(claims))
    weights = eq_combination([c.point for c in claims], coeffs)
    sumcheck, point, finals = prove_sumcheck([weights, table], [Product((0, 1))], channel)
    value = finals[1]
    channel.mix_felts([value])
    return SamePolyProof(sumcheck, value), Claim(tuple(point), value)
