"""layernorm verifier: the mirror of prove_layernorm, every check named as in
docs/layers/layernorm.md. It reads the public statistics s1, s2 (to compute μ and r) and
never the values of h, y, γ or β: those leave as claims."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.layernorm.model import row_factors
from cairn.prover.layers.layernorm.params import (
    LayerNormParams,
    params_of,
    shape_of,
)
from cairn.prover.layers.layernorm.proof import LayerNormProof
from cairn.prover.layers.layernorm.relations import (
    BALANCED,
    LIMB,
    NORM,
    SCALE,
    TAG,
    Relations,
    StepPoints,
    absorb_claims,
    factors_mle,
    instance_vars,
    layer_claims,
    opening_claims,
)
from cairn.prover.layers.layernorm.statistics import verify_statistics
from cairn.prover.layers.mha.heads import verify_head_product
from cairn.prover.layers.requant.relations import input_value
from cairn.prover.layers.requant.verifier import verify_columns
from cairn.prover.lookups.verifier import LeafClaim, check_balance, verify_logup
from cairn.prover.mle import evaluate_tensor, tensor_vars
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_limbs(
    rel: Relations, p: LayerNormParams, leaves: Sequence[LeafClaim], proof: LayerNormProof
) -> list[tuple[QM31, ...]]:
    """`logup.numerator` and `layernorm.columns` for the LIMB witness and table leaves."""
    cols = proof.limbs
    for leaf, want in zip(leaves, (QM31.one(), cols.m), strict=True):
        if leaf.numerator != want:
            raise VerificationError("logup.numerator", "a LIMB leaf numerator is not 1 or m~")
    points = [leaf.point for leaf in leaves]
    for leaf, key in zip(leaves, rel.limb_keys_at(p, points, cols), strict=True):
        if leaf.denominator != key:
            raise VerificationError("layernorm.columns", "a LIMB leaf denominator is not its key")
    return points


def verify_layernorm(
    st: Statement, proof: LayerNormProof, outputs: dict[str, Claim], parent: Channel
) -> LayerClaims:
    p, s = params_of(st), st.dims[0]
    n = tensor_vars(shape_of(st))
    rows = len(outputs["s1"].point)
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    for name in sorted(outputs):
        channel.mix_felts([*outputs[name].point, outputs[name].value])

    y_claim = outputs["y"]
    channel.mix_felts([proof.beta])

    rel = Relations.draw(channel)
    leaves = verify_logup(instance_vars(n, p), proof.logup, channel)
    check_balance(proof.logup, BALANCED)
    points = [
        *verify_columns(rel.norm, p.norm, leaves[NORM], proof.norm),
        *verify_columns(rel.scale, p.scale, leaves[SCALE], proof.scale),
        *verify_limbs(rel, p, leaves[LIMB], proof),
    ]
    channel.mix_felts([*proof.norm.values(), *proof.scale.values(), *proof.limbs.values()])

    rho = points[NORM][1]
    rho_rows, rho_cols = rho[:rows], rho[rows:]
    scale = input_value(p.scale, proof.scale)
    kappa_cols = verify_head_product(
        proof.scale_step, scale, rho_cols, 0, channel, "layernorm.scale"
    )
    mean, factors = row_factors(st.outputs["s1"], st.outputs["s2"], p)
    norm = input_value(p.norm, proof.norm)
    kappa_rows = verify_head_product(
        proof.norm_step, norm, rho_rows, 0, channel, "layernorm.normalise"
    )
    if proof.norm_step.left != factors_mle(factors, kappa_rows):
        raise VerificationError("layernorm.factor", "r~ at the normalise point is not r's MLE")

    stats = proof.statistics
    pi = verify_statistics(stats, outputs["s1"], outputs["s2"], n, p.limb_bits, p.d, channel)

    at = StepPoints(
        rho_rows, rho_cols, tuple(kappa_cols), tuple(kappa_rows), tuple(pi), y_claim.point
    )
    sent = (proof.norm, proof.scale, proof.limbs)
    ends = (proof.scale_step.right, proof.beta, stats)
    witness = opening_claims(p, points, at, sent, ends, y_claim, s)
    join(parent, channel)  # type: ignore[arg-type]

    handed = layer_claims(p, proof, at, evaluate_tensor(mean, at.kappa_rows))
    absorb_claims(parent, handed)
    return replace(handed, witness=witness)
