"""The batched LogUp-GKR verifier (docs/lookups.md): the mirror of prove_logup. It checks the
proof's shape, the roots' denominators and every layer, and returns the claims on the leaf MLEs
that the caller must settle; check_balance compares the roots of each lookup relation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.prover.channels.base import Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.lookups.circuit import (
    DEGREE,
    MASK_SIZE,
    ROOT_SIZE,
    active,
    combine,
    flatten,
    gate,
    layer_claim,
    reduce_mask,
)
from cairn.prover.lookups.proof import LogUpProof
from cairn.prover.mle import eq_eval
from cairn.prover.sumcheck.verifier import verify_sumcheck


@dataclass(frozen=True)
class LeafClaim:
    """What the GKR leaves on one instance's leaves: p~(point) and q~(point), where point is
    the instance's n_vars-long suffix of the common point. Not checked here: the caller must."""

    point: tuple[QM31, ...]
    numerator: QM31
    denominator: QM31


def check_shape(n_vars: Sequence[int], proof: LogUpProof) -> None:
    """Every count the instance sizes fix, before anything is absorbed."""
    if len(proof.roots) != len(n_vars) or any(len(r) != ROOT_SIZE for r in proof.roots):
        raise VerificationError("gkr.root_count", f"{len(n_vars)} roots of {ROOT_SIZE} values")
    n = max(n_vars, default=0)
    if len(proof.layers) != n:
        raise VerificationError("gkr.layer_count", f"{len(proof.layers)} != {n}")
    for j, layer in enumerate(proof.layers):
        rounds = layer.sumcheck.rounds
        if len(rounds) != j:
            raise VerificationError("gkr.round_count", f"layer {j}: {len(rounds)} != {j}")
        if any(len(sent) != DEGREE for sent in rounds):
            raise VerificationError("gkr.round_degree", f"layer {j}: {DEGREE} values per round")
        n_active = len(active(n_vars, j))
        if len(layer.masks) != n_active or any(len(m) != MASK_SIZE for m in layer.masks):
            raise VerificationError(
                "gkr.mask_count", f"layer {j}: {n_active} masks of {MASK_SIZE} values"
            )


def verify_logup(n_vars: Sequence[int], proof: LogUpProof, channel: Channel) -> list[LeafClaim]:
    """Replay the walk from the roots to the leaves; returns one LeafClaim per instance."""
    check_shape(n_vars, proof)
    for i, (_, q) in enumerate(proof.roots):
        if q == QM31.zero():
            raise VerificationError("logup.zero_denominator", f"instance {i}: root Q = 0")
    channel.mix_felts(flatten(proof.roots))
    n = max(n_vars, default=0)
    claims = [list(r) for r in proof.roots]
    point: list[QM31] = []
    for j, layer in enumerate(proof.layers):
        act = active(n_vars, j)
        unused = [n - n_vars[i] for i in act]
        channel.mix_felts(flatten([claims[i] for i in act]))
        a = channel.draw_secure_felt()
        lam = channel.draw_secure_felt()
        claim = layer_claim([claims[i] for i in act], unused, lam, a)
        s, final = verify_sumcheck(claim, layer.sumcheck, j, DEGREE, channel)
        gates = [
            eq_eval(point[u:], s[u:]) * gate(mask, lam)
            for u, mask in zip(unused, layer.masks, strict=True)
        ]
        if final != combine(gates, a):
            raise VerificationError("gkr.layer", f"layer {j}: Σ a^k·eq·gate ≠ the sum-check's end")
        channel.mix_felts(flatten(layer.masks))
        rho = channel.draw_secure_felt()
        point = [*s, rho]
        for i, mask in zip(act, layer.masks, strict=True):
            claims[i] = reduce_mask(mask, rho)
    return [LeafClaim(tuple(point[n - k :]), *claims[i]) for i, k in enumerate(n_vars)]


def check_balance(
    proof: LogUpProof, relations: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> None:
    """Σ_w P_w/Q_w = Σ_t P_t/Q_t for each (witness instances, table instances), cross-multiplied:
    the sum's projective numerator must vanish (its denominator is a product of non-zero Q's)."""
    for k, (witness, table) in enumerate(relations):
        num, den = QM31.zero(), QM31.one()
        for sign, indices in ((1, witness), (-1, table)):
            for i in indices:
                p, q = proof.roots[i]
                if q == QM31.zero():
                    raise VerificationError("logup.zero_denominator", f"instance {i}: root Q = 0")
                num = num * q + p * den * sign
                den = den * q
        if num != QM31.zero():
            raise VerificationError("logup.balance", f"relation {k}: witness and table differ")
