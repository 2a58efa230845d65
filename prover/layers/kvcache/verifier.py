"""Decode verifier: the mirror of prove_decode; O(T·(log l + log h + log e) + T) field work."""

from __future__ import annotations

from collections.abc import Mapping

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.kvcache.proof import DEGREE, ConcatProof, DecodeProof
from cairn.prover.layers.kvcache.prover import (
    SPLIT,
    Chain,
    add_empty_rows_claims,
    cache_claims,
    has_committed_cache,
    new_row_targets,
)
from cairn.prover.layers.linear.projection import verify_projection
from cairn.prover.layers.qkv.model import QKV
from cairn.prover.mle import eq_eval, eq_table, hypercube_point, tensor_vars
from cairn.prover.padding import expect_empty_rows, verify_empty_rows
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.sumcheck.verifier import verify_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_concat(
    proof: ConcatProof,
    merged: Mapping[str, Claim],
    pos: int,
    row_vars: int,
    col_vars: int,
    channel: Channel,
) -> list[QM31]:
    """K_t(r_K) = K_{t−1}(r_K) + k̃_t(r_K), then the sum-check binding k̃_t to k_t; P_t(r_l) is
    eq(r_l, pos), computed here in O(log l)."""
    for j, prev, new in (("k", proof.k_prev, proof.k_new), ("v", proof.v_prev, proof.v_new)):
        if merged[j].value != prev + new:
            raise VerificationError("kvcache.concat", f"{j}: the claim ≠ prev + new")
    channel.mix_felts([proof.k_prev, proof.k_new, proof.v_prev, proof.v_new])
    lam = channel.draw_secure_felt()
    claim = proof.k_new + lam * proof.v_new
    point, final = verify_sumcheck(claim, proof.sumcheck, row_vars + col_vars, DEGREE, channel)
    channel.mix_felts([proof.k_value, proof.v_value])
    pad = eq_eval(point[:row_vars], hypercube_point(pos, row_vars))
    k_part = eq_eval(merged["k"].point, point) * proof.k_value
    v_part = eq_eval(merged["v"].point, point) * proof.v_value
    if final != pad * (k_part + lam * v_part):
        raise VerificationError("kvcache.concat_final", "β·P·k + λ·β·P·v differs at the end")
    return point


def verify_decode(
    st: Statement, proof: DecodeProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    steps, context, e, h, s0 = st.dims
    step_vars, row_vars = tensor_vars((steps,)), tensor_vars((context,))
    col_vars = tensor_vars((h,))
    split = {"q": proof.q_steps, "k": proof.k_steps, "v": proof.v_steps}
    counts = [len(split[name]) for name in SPLIT] + [len(proof.steps)]
    if counts != [steps] * len(counts):
        raise VerificationError("kvcache.step_count", f"q, k, v, steps: {counts} != {steps}")
    outputs = {name: outputs[name] for name in SPLIT}  # each claim present, before any check
    channel.mix_felts([v for name in SPLIT for v in split[name]])
    for name in SPLIT:
        weights = eq_table(outputs[name].point[:step_vars])[:steps]
        if (weights * QM31Array.from_list(split[name])).sum() != outputs[name].value:
            raise VerificationError("kvcache.output_split", f"{name}: Σ_t eq(r, t)·y_t ≠ y")
    chain = Chain(step_vars)
    for t in reversed(range(steps)):
        step = proof.steps[t]
        merged: dict[str, Claim] = {}
        for j, merge in (("k", step.k_merge), ("v", step.v_merge)):
            claims = cache_claims(outputs[j], split[j][t], chain.pending.get(j), step_vars)
            merged[j] = verify_sameply(merge, claims, row_vars + col_vars, channel)
        point = verify_concat(step.concat, merged, s0 + t, row_vars, col_vars, channel)
        targets = new_row_targets(
            outputs["q"], split["q"][t], step.concat, point, row_vars, step_vars
        )
        z = verify_projection(QKV, step.projection, targets, [QM31.one()], e, channel)
        chain.close_step(t, merged, step.concat, targets, z, step.projection)
    claims = chain.layer_claims()
    expect_empty_rows(proof.empty_rows, has_committed_cache(st))
    if proof.empty_rows is not None:
        point = verify_empty_rows(proof.empty_rows, 2, s0, row_vars, col_vars, channel)
        add_empty_rows_claims(claims, proof.empty_rows, point)
    return claims
