"""The proof of a decode run: the output split and one step proof per step (docs/layers/kvcache.md).

The walk's claims on q (T × h), K and V (T × l × h) are split into claims on every step's
q_t, K_t, V_t. Step t (proved from T down to 1) merges the claims on K_t (and V_t), proves
K_t = K_{t−1} + P_t ⊗ k_t by the concatenation sum-check (docs/layers/kvcache.md), then
q_t, k_t, v_t from x_t by the QKV projection sum-check on one row; its claims on K_{t−1},
V_{t−1} go to step t − 1. With committed initial caches, a last sum-check shows their rows
beyond the prefill are zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.padding import EmptyRowsProof
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sumcheck.proof import SumcheckProof

DEGREE = 3  # β(x‖y, r)·P(x)·k(y)


@dataclass(frozen=True)
class ConcatProof:
    """At the merged points r_K, r_V: K_{t−1}(r_K) and k̃_t(r_K) = (P_t ⊗ k_t)~(r_K), the same
    for V; the sum-check binding k̃_t, ṽ_t to k_t, v_t; then k_t(r_h), v_t(r_h)."""

    k_prev: QM31
    k_new: QM31
    v_prev: QM31
    v_new: QM31
    sumcheck: SumcheckProof
    k_value: QM31
    v_value: QM31


@dataclass(frozen=True)
class StepProof:
    """k_merge, v_merge: the same-poly merge of the claims on K_t, V_t (null at step T)."""

    k_merge: SamePolyProof | None
    v_merge: SamePolyProof | None
    concat: ConcatProof
    projection: ProjectionProof


@dataclass(frozen=True)
class DecodeProof:
    """q_steps[t−1] = q_t(r_q), k_steps[t−1] = K_t(r_K), v_steps[t−1] = V_t(r_V) at the output
    claims' points without their step variables; steps[t−1] proves step t; empty_rows is
    present exactly when an initial cache is committed."""

    q_steps: list[QM31]
    k_steps: list[QM31]
    v_steps: list[QM31]
    steps: list[StepProof]
    empty_rows: EmptyRowsProof | None
