"""MHA verifier: the mirror of prove_mha. Beyond the walk's reading of the public tensors it
evaluates only closed forms (structured.py): polylog work, except P̃ at O(μ·log d) for the
odd part μ of m."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.layers.mha.heads import verify_head_product
from cairn.prover.layers.mha.model import Dims
from cairn.prover.layers.mha.proof import HeadProductStep, MhaProof, OneFactorStep, PadStep
from cairn.prover.layers.mha.prover import AttendPoint, ScorePoint, input_claims
from cairn.prover.layers.mha.structured import mask_mle, pad_mle, unpad_mle, zeroifier_mle
from cairn.prover.mle import eq_eval
from cairn.prover.sumcheck.verifier import verify_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement

UNPAD_DEGREE = 2  # Ô(r_s, x)·U(x, r_d)
MASK_DEGREE = 3  # eq(x, r)·ẑ(x)·QK̂(x)
PAD_DEGREE = 2  # X(r_row, x)·P(x, r_col)


def verify_attend(
    dims: Dims, unpad: OneFactorStep, attend: HeadProductStep, o: Claim, channel: Channel
) -> AttendPoint:
    """The mirror of prove_attend; the claim on A it leaves is (at.a, attend.left)."""
    r_s, r_d = o.point[: dims.s_vars], o.point[dims.s_vars :]
    point, final = verify_sumcheck(
        o.value, unpad.sumcheck, dims.h_vars + dims.m_vars, UNPAD_DEGREE, channel
    )
    if final != unpad.value * unpad_mle(dims.h, dims.m, point, r_d):
        raise VerificationError("mha.unpad", "Ô(r_s, r)·U~(r, r_d) differs")
    channel.mix_felts([unpad.value])

    r_h, r_m = point[: dims.h_vars], point[dims.h_vars :]
    point = verify_head_product(attend, unpad.value, r_h, dims.s_vars, channel, "mha.attend")
    return AttendPoint(r_s, point[: dims.h_vars], point[dims.h_vars :], r_m)


def verify_scores(
    dims: Dims,
    heads: HeadProductStep,
    pad: PadStep,
    scores: Claim,
    attend: HeadProductStep,
    at: AttendPoint,
    channel: Channel,
) -> ScorePoint:
    """The mirror of prove_scores, from the claim on QK̂."""
    r_1, r_2, r_3 = dims.split_scores(scores.point)
    r_c = verify_head_product(heads, scores.value, r_1, dims.m_vars, channel, "mha.heads")

    lam = channel.draw_secure_felts(2)
    claim = heads.left + lam[0] * heads.right + lam[1] * attend.right
    point, final = verify_sumcheck(claim, pad.sumcheck, dims.d_vars, PAD_DEGREE, channel)
    p_qk = pad_mle(dims.h, dims.m, point, r_c)
    p_v = pad_mle(dims.h, dims.m, point, [*at.r_x, *at.r_m])
    if final != (pad.q + lam[0] * pad.k) * p_qk + lam[1] * pad.v * p_v:
        raise VerificationError("mha.pad", "Q·P~ + λ₁K·P~ + λ₂V·P~ at r differs")
    channel.mix_felts([pad.q, pad.k, pad.v])
    return ScorePoint(r_2, r_3, point)


def verify_mha(
    st: Statement, proof: MhaProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    dims = Dims.of(st)
    at = verify_attend(dims, proof.unpad, proof.attend, outputs["o"], channel)

    # 3. Masking.
    sm = outputs["s_m"]
    _, r_row, r_col = dims.split_scores(sm.point)
    claim = sm.value - mask_mle(dims.s, dims.causal, r_row, r_col)
    point, final = verify_sumcheck(
        claim, proof.mask.sumcheck, dims.h_vars + 2 * dims.s_vars, MASK_DEGREE, channel
    )
    _, r_2, r_3 = dims.split_scores(point)
    z = zeroifier_mle(dims.s, dims.causal, r_2, r_3)
    if final != eq_eval(point, sm.point) * z * proof.mask.value:
        raise VerificationError("mha.mask", "eq(r', r)·z~(r')·QK̂(r') differs")
    channel.mix_felts([proof.mask.value])

    scores = Claim(tuple(point), proof.mask.value)
    sp = verify_scores(dims, proof.heads, proof.pad, scores, proof.attend, at, channel)
    claims = input_claims(proof.attend, proof.pad, at, sp)
    return LayerClaims(claims | {"a": [Claim(at.a, proof.attend.left)]}, {})
