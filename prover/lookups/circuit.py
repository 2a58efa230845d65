"""What the prover and the verifier of the fraction tree compute alike (docs/lookups.md).

Instance I has n_I variables; the walk has n = max n_I layers. At layer j (claims on a point of
j variables) instance I is active iff j ≥ n − n_I: it joins with its root at j = n − n_I, and
its claims sit on the last j − (n − n_I) coordinates of the common point.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.prover.fields.qm31 import QM31

DEGREE = 3  # eq(r, x) times a product of two children
MASK_SIZE = 4  # p(s,0), p(s,1), q(s,0), q(s,1)
ROOT_SIZE = 2  # P, Q


def active(n_vars: Sequence[int], layer: int) -> list[int]:
    """The instances taking part in `layer`, in instance order."""
    n = max(n_vars, default=0)
    return [i for i, k in enumerate(n_vars) if layer >= n - k]


def gate(mask: Sequence[QM31], lam: QM31) -> QM31:
    """p(x,0)q(x,1) + p(x,1)q(x,0) + λ·q(x,0)q(x,1): the parent's p + λq from its children."""
    p0, p1, q0, q1 = mask
    return p0 * q1 + p1 * q0 + lam * (q0 * q1)


def reduce_mask(mask: Sequence[QM31], rho: QM31) -> list[QM31]:
    """The children's claims at the child coordinate ρ: [p(s,ρ), q(s,ρ)]."""
    p0, p1, q0, q1 = mask
    return [p0 + rho * (p1 - p0), q0 + rho * (q1 - q0)]


def combine(values: Sequence[QM31], a: QM31) -> QM31:
    """Σ_k a^k·values[k] (Horner)."""
    acc = QM31.zero()
    for v in reversed(values):
        acc = acc * a + v
    return acc


def layer_claim(
    claims: Sequence[Sequence[QM31]], unused: Sequence[int], lam: QM31, a: QM31
) -> QM31:
    """The layer sum-check's claim: Σ_k a^k·2^unused_k·(p_k + λ·q_k) over the active claims.

    An instance ignores the first unused_k variables of the sum-check, so its sum counts its
    own 2^unused_k times."""
    return combine([(p + lam * q) * (1 << u) for (p, q), u in zip(claims, unused, strict=True)], a)


def flatten(rows: Sequence[Sequence[QM31]]) -> list[QM31]:
    return [x for row in rows for x in row]
