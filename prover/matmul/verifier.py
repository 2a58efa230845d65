"""Matmul verifier: the Python mirror of verifier_cairo/src/matmul.cairo, step for step."""

from __future__ import annotations

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.matmul.instance import absorb_instance, expect_ranges
from cairn.prover.matmul.proof import DEGREE, MatmulProof
from cairn.prover.mle import evaluate_matrix, log2_exact, pad_tensor
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.sumcheck.verifier import verify_sumcheck


def verify_matmul(proof: MatmulProof) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check."""
    inst = proof.instance
    if not inst.shapes_consistent():
        raise VerificationError("instance.shape", "matrix shapes do not match (m, k, n)")
    expect_ranges(inst)
    channel = Poseidon252Channel()
    absorb_instance(channel, inst)
    mp, kp, np_ = inst.padded_dims
    challenges = channel.draw_secure_felts(log2_exact(mp) + log2_exact(np_))
    r_row, r_col = challenges[: log2_exact(mp)], challenges[log2_exact(mp) :]
    a, c = (pad_tensor(embed(x)) for x in (inst.a, inst.c))
    claim = evaluate_matrix(c, r_row, r_col)
    r_inner, final = verify_sumcheck(claim, proof.sumcheck, log2_exact(kp), DEGREE, channel)
    cw = inst.b_commitment
    if cw is None:
        b_value = evaluate_matrix(pad_tensor(embed(inst.b)), r_inner, r_col)
    elif proof.b_value is None or proof.opening is None:
        raise VerificationError("matmul.opening", "a committed B needs b_value and its opening")
    else:
        b_value = proof.b_value
    if final != evaluate_matrix(a, r_row, r_inner) * b_value:
        raise VerificationError("matmul.final_evaluation", "A~(r_row, r) * B~(r, r_col) differs")
    if cw is not None:
        channel.mix_felts([b_value])
        claim_b = Claim((*r_inner, *r_col), b_value)
        verify_batch([(cw, [claim_b])], proof.opening, PARAMS[cw.hash], channel)
