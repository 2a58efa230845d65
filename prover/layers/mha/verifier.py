"""MHA verifier: the mirror of prove_mha. Beyond the walk's reading of the public tensors it
evaluates only closed forms (structured.py): polylog work, except P̃ at O(μ·log d) for the
odd part μ of m."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.layers.mha.heads import verify_head_product
from cairn.prover.layers.mha.model import Dims
from cairn.prover.layers.mha.proof import MhaProof
from cairn.prover.layers.mha.prover import Points, input_claims
from cairn.prover.layers.mha.structured import mask_mle, pad_mle, unpad_mle, zeroifier_mle
from cairn.prover.mle import eq_eval
from cairn.prover.sumcheck.verifier import verify_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement

UNPAD_DEGREE = 2  # Ô(r_s, x)·U(x, r_d)
MASK_DEGREE = 3  # eq(x, r)·ẑ(x)·QK̂(x)
PAD_DEGREE = 2  # X(r_row, x)·P(x, r_col)


def verify_mha(
    st: Statement, proof: MhaProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    dims = Dims.of(st)
    h, m, s_vars, h_vars = dims.h, dims.m, dims.s_vars, dims.h_vars

    # 1. Unpadding.
    o = outputs["o"]
    r_s, r_d = o.point[:s_vars], o.point[s_vars:]
    point, final = verify_sumcheck(
        o.value, proof.unpad.sumcheck, h_vars + dims.m_vars, UNPAD_DEGREE, channel
    )
    if final != proof.unpad.value * unpad_mle(h, m, point, r_d):
        raise VerificationError("mha.unpad", "Ô(r_s, r)·U~(r, r_d) differs")
    channel.mix_felts([proof.unpad.value])

    # 2. A·Ṽ.
    r_h, r_m = point[:h_vars], point[h_vars:]
    point = verify_head_product(proof.attend, proof.unpad.value, r_h, s_vars, channel, "mha.attend")
    r_x, r_y = point[:h_vars], point[h_vars:]

    # 3. Masking.
    sm = outputs["s_m"]
    _, r_row, r_col = dims.split_scores(sm.point)
    claim = sm.value - mask_mle(dims.s, dims.causal, r_row, r_col)
    point, final = verify_sumcheck(
        claim, proof.mask.sumcheck, h_vars + 2 * s_vars, MASK_DEGREE, channel
    )
    r_1, r_2, r_3 = dims.split_scores(point)
    z = zeroifier_mle(dims.s, dims.causal, r_2, r_3)
    if final != eq_eval(point, sm.point) * z * proof.mask.value:
        raise VerificationError("mha.mask", "eq(r', r)·z~(r')·QK̂(r') differs")
    channel.mix_felts([proof.mask.value])

    # 4. QKᵀ.
    r_c = verify_head_product(proof.heads, proof.mask.value, r_1, dims.m_vars, channel, "mha.heads")

    # 5. Padding.
    pad = proof.pad
    lam = channel.draw_secure_felts(2)
    claim = proof.heads.left + lam[0] * proof.heads.right + lam[1] * proof.attend.right
    point, final = verify_sumcheck(claim, pad.sumcheck, dims.d_vars, PAD_DEGREE, channel)
    p_qk, p_v = pad_mle(h, m, point, r_c), pad_mle(h, m, point, [*r_x, *r_m])
    if final != (pad.q + lam[0] * pad.k) * p_qk + lam[1] * pad.v * p_v:
        raise VerificationError("mha.pad", "Q·P~ + λ₁K·P~ + λ₂V·P~ at r differs")
    channel.mix_felts([pad.q, pad.k, pad.v])

    return input_claims(proof, Points(r_s, r_x, r_y, r_2, r_3, point))
