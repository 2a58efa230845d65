"""Softmax verifier: the mirror of prove_softmax, every check named as in docs/layers/attn.md."""

from __future__ import annotations

from collections.abc import Mapping

from cairn.prover.channels.fork import fork, join
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.mha.model import Dims
from cairn.prover.lookups.verifier import check_balance, verify_logup
from cairn.prover.mle import eq_eval
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.stack import check_stacks
from cairn.prover.softmax.params import EXP_BITS, U_MASK, SoftmaxParams
from cairn.prover.softmax.proof import SoftmaxProof
from cairn.prover.softmax.prover import TAG
from cairn.prover.softmax.relations import (
    BALANCED,
    STACKS,
    TABLE,
    WITNESS,
    Relations,
    instance_vars,
    norm_at,
    opening_claims,
    table_keys_at,
    witness_layout,
)
from cairn.prover.softmax.structured import valid_entries_mle
from cairn.prover.sumcheck.verifier import verify_sumcheck

RECOMPOSE_DEGREE = 3  # eq(ρ, x)·w(x)·(Z(x_row) − c·QK̂(x))


def check_commitments(
    dims: Dims, params: SoftmaxParams, witness: Mapping[str, Commitment]
) -> list[Commitment]:
    """`softmax.commitment` unless the witness is exactly the layout's stacks, one hash."""
    return check_stacks(STACKS, witness_layout(dims, params), witness)


def verify_softmax(
    dims: Dims,
    params: SoftmaxParams,
    proof: SoftmaxProof,
    a_claim: Claim,
    parent: Poseidon252Channel,
) -> tuple[Claim, dict[str, list[Claim]]]:
    """Returns the claim on QK̂ that MHA's QKᵀ step reduces and the claims the walk's witness
    opening settles; raises a named check. The statement check has run check_commitments."""
    channel = fork(parent, TAG)
    channel.mix_felts([*a_claim.point, a_claim.value])

    rel = Relations.draw(channel)
    leaves = verify_logup(instance_vars(dims, params), proof.logup, channel)
    check_balance(proof.logup, BALANCED)
    cols = proof.columns
    numerators = [QM31.one()] * len(WITNESS) + [cols.m_exp, cols.m_limb, cols.m_norm]
    for leaf, want in zip(leaves, numerators, strict=True):
        if leaf.numerator != want:
            raise VerificationError("logup.numerator", "a leaf numerator is not 1 or m~")
    points = [leaf.point for leaf in leaves]
    keys = [
        rel.exp.of(cols.e, cols.live, cols.y),
        rel.limb.of(cols.lo, cols.hi, cols.live),
        rel.norm.of(norm_at(dims, params, points[2], cols.row_mean)),
        *table_keys_at(rel, params, [points[t] for t in TABLE], cols.table),
    ]
    for leaf, key in zip(leaves, keys, strict=True):
        if leaf.denominator != key:
            raise VerificationError("softmax.columns", "a leaf denominator is not its key")
    channel.mix_felts(cols.values())

    rho = points[0]
    lo_bits = params.lo_bits
    u = cols.lo + cols.e * (1 << lo_bits) + cols.hi * (1 << (lo_bits + EXP_BITS))
    w_rho = valid_entries_mle(dims.h, dims.s, dims.causal, rho)
    claim = u - (QM31.one() - w_rho) * U_MASK
    n = dims.h_vars + 2 * dims.s_vars
    r_star, final = verify_sumcheck(claim, proof.recompose, n, RECOMPOSE_DEGREE, channel)
    w_star = valid_entries_mle(dims.h, dims.s, dims.causal, r_star)
    if final != eq_eval(rho, r_star) * w_star * (proof.shift - proof.score * params.c):
        raise VerificationError("softmax.mask", "eq·w~·(ζ − c·σ) differs at r*")
    channel.mix_felts([proof.shift, proof.score])

    witness = opening_claims(dims, params, points, cols, Claim(tuple(r_star), proof.shift), a_claim)
    join(parent, channel)
    parent.mix_felts([*r_star, proof.score])
    return Claim(tuple(r_star), proof.score), witness
