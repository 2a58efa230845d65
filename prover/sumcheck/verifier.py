"""Sum-check verifier: the mirror of prove_sumcheck, one transcript step per round."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.sumcheck.proof import SumcheckProof, evaluate_round


def verify_sumcheck(
    claim: QM31,
    proof: SumcheckProof,
    n_vars: int,
    degree: int,
    channel: Channel,
) -> tuple[list[QM31], QM31]:
    """Replay the rounds; returns the point r and the claim the final evaluation must meet."""
    if len(proof.rounds) != n_vars:
        raise VerificationError("sumcheck.round_count", f"{len(proof.rounds)} != {n_vars}")
    point: list[QM31] = []
    for i, sent in enumerate(proof.rounds):
        if len(sent) != degree:
            raise VerificationError("sumcheck.round_degree", f"round {i}: {len(sent)} != {degree}")
        channel.mix_felts(sent)
        r = channel.draw_secure_felt()
        claim = evaluate_round(claim, sent, r)
        point.append(r)
    return point, claim
