"""Same-poly accumulation verifier: the mirror of prove_sameply."""

from __future__ import annotations

from collections.abc import Sequence

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.mle import eq_combination_at
from cairn.prover.sameply.proof import DEGREE, SamePolyProof
from cairn.prover.sumcheck.verifier import verify_sumcheck


def verify_sameply(
    proof: SamePolyProof | None, claims: Sequence[Claim], n_vars: int, channel: Channel
) -> Claim:
    if not claims or any(len(c.point) != n_vars for c in claims):
        raise VerificationError("sameply.claims", f"claims must be on {n_vars} variables")
    if len(claims) == 1:
        if proof is not None:
            raise VerificationError("sameply.proof", "a single claim takes no proof")
        return claims[0]
    if proof is None:
        raise VerificationError("sameply.proof", f"{len(claims)} claims need a proof")
    channel.mix_felts([c.value for c in claims])
    coeffs = channel.draw_secure_felts(len(claims))
    total = QM31.zero()
    for a, claim in zip(coeffs, claims, strict=True):
        total = total + a * claim.value
    point, final = verify_sumcheck(total, proof.sumcheck, n_vars, DEGREE, channel)
    weight = eq_combination_at([c.point for c in claims], coeffs, point)
    if final != weight * proof.value:
        raise VerificationError("sameply.final_evaluation", "g(r') * f(r') differs")
    channel.mix_felts([proof.value])
    return Claim(tuple(point), proof.value)
