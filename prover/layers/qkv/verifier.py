"""QKV verifier: the mirror of prove_qkv; O(log s + log e + log h) field work."""

from __future__ import annotations

from collections.abc import Sequence

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.qkv.model import PROJECTIONS
from cairn.prover.layers.qkv.proof import DEGREE, QkvProof
from cairn.prover.layers.qkv.prover import Target, output_targets, projection_claims
from cairn.prover.mle import prefix_mask, tensor_vars
from cairn.prover.sumcheck.verifier import verify_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_projection(
    proof: QkvProof,
    targets: Sequence[Target],
    masks: Sequence[QM31],
    n_vars: int,
    channel: Channel,
) -> list[QM31]:
    """masks[i]: the bias rows' mask at row point i. Returns the sum-check's point r."""
    for name, values, count in (
        ("bias", proof.bias, len(PROJECTIONS)),
        ("x", proof.x, len(masks)),
        ("w", proof.w, len(PROJECTIONS)),
    ):
        if len(values) != count:
            raise VerificationError("qkv.value_count", f"{name}: {len(values)} != {count}")
    channel.mix_felts(proof.bias)
    lambdas = [QM31.one(), *channel.draw_secure_felts(len(PROJECTIONS) - 1)]
    claim = QM31.zero()
    for lam, t, b in zip(lambdas, targets, proof.bias, strict=True):
        claim = claim + lam * (t.value - masks[t.row] * b)
    point, final = verify_sumcheck(claim, proof.sumcheck, n_vars, DEGREE, channel)
    channel.mix_felts([*proof.x, *proof.w])
    expected = QM31.zero()
    for lam, t, w in zip(lambdas, targets, proof.w, strict=True):
        expected = expected + lam * proof.x[t.row] * w
    if final != expected:
        raise VerificationError("qkv.final_evaluation", "Σ λ_j X(a_j, r)·W_j(r, c_j) differs")
    return point


def verify_qkv(
    st: Statement, proof: QkvProof, outputs: dict[str, Claim], channel: Channel
) -> LayerClaims:
    s, e, _ = st.dims
    rows, targets = output_targets(outputs, tensor_vars((s,)))
    masks = [prefix_mask(a, s) for a in rows]
    point = verify_projection(proof, targets, masks, tensor_vars((e,)), channel)
    x_claims, weights = projection_claims(rows, targets, point, proof)
    return LayerClaims({"x": x_claims}, weights)
