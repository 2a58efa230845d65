"""Matmul verifier: the Python mirror of verifier_cairo/src/matmul.cairo, step for step."""

from __future__ import annotations

from dataclasses import astuple

from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.matmul.instance import absorb_instance, expect_ranges
from cairn.prover.matmul.proof import DEGREE, MatmulProof
from cairn.prover.mle import evaluate_matrix, log2_exact, pad_tensor
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.transcript import Statement
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.sumcheck.verifier import verify_sumcheck


def verify_matmul(proof: MatmulProof) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check."""
    opening = verify_product(proof)
    if opening is not None:
        statement, channel = opening
        assert proof.opening is not None
        verify_batch(statement, proof.opening, PARAMS[statement[0][0].hash], channel)


def verify_product(proof: MatmulProof) -> tuple[Statement, Poseidon252Channel] | None:
    """Everything but a committed B's opening: for a committed B, returns the claim
    B~(r_inner ‖ r_col) = b_value still to open and the channel its opening continues on."""
    inst = proof.instance
    if not inst.shapes_consistent():
        raise VerificationError("instance.shape", "matrix shapes do not match (m, k, n)")
    expect_ranges(inst)
    if not all(0 <= felt < STARK_PRIME for felt in astuple(inst.binding)):
        raise VerificationError("instance.binding", "model id, weight and config hash are felts")
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
    if cw is None:
        return None
    channel.mix_felts([b_value])
    return [(cw, [Claim((*r_inner, *r_col), b_value)])], channel
