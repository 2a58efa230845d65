"""Public parameters of the quantised softmax and the statement check the verifier runs on them.

Scores S = Q₈·K₈ᵀ have |S| ≤ S_max = m·127² (int8 Q and K). The exp argument u = Z_i − c·S_ij
is an integer in units of 2^-F with c = round(γ·2^F); c·S_max ≤ 2^28 keeps u in [0, 2^30), so
its limbs lo (F − 12 bits), e (16 bits) and hi (26 − F bits) rebuild it without wrapping mod p.
Outputs are at scale 2^θ; ŝ·2^θ ≤ 2^30 keeps a row sum from wrapping. ε bounds |R_i − 2^θ| for
an honest row: the table's resolution (2^θ·Δ), one rounding per entry (ŝ/2), and one unit for
the float64 shift.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cairn.prover.errors import VerificationError
from cairn.prover.mle import next_pow2

THETA = 19
"""Output scale 2^θ; valid for ŝ ≤ 2^(30−θ) = 2048."""
EXP_RES_BITS = 12
"""The exp table's resolution is 2^-12 in the argument."""
EXP_BITS = 16
"""The exp table has 2^16 entries: arguments [0, 16), beyond which 2^19·e^-16 < ½ rounds to 0."""
U_BITS = 30
"""Every exp argument u lies in [0, 2^30) ⊂ [0, p): in-range limbs determine it uniquely."""
U_MASK = 1 << 29
"""u on masked and padded entries: its hi limb is 2^(25−F) ≠ 0, so y = 0 exactly."""
U_HEADROOM_BITS = 28
"""c·S_max ≤ 2^28: a row's spread |c·(S_ij − S_ik)| ≤ 2^29 leaves u room below 2^30."""
QK_BOUND = 127
"""|Q|, |K| ≤ 127 (int8)."""
F_MIN, F_MAX = EXP_RES_BITS, 25
"""F ≥ 12 so lo has ≥ 0 bits; F ≤ 25 so U_MASK's hi limb 2^(25−F) is a nonzero integer."""
LIMB_BITS = U_BITS - EXP_BITS
"""lo_bits + hi_bits = 14 for every F: the LIMB table has 2^14 rows."""
DELTA = math.expm1(2.0**-EXP_RES_BITS)
"""Relative error of dropping lo: exp changes by a factor in (e^(−2^-12), 1]."""


def s_max(m: int) -> int:
    """The largest |score| of int8 Q and K over head dimension m."""
    return m * QK_BOUND * QK_BOUND


def epsilon(s: int, theta: int = THETA) -> int:
    """ε = ⌈2^θ·Δ⌉ + ⌈ŝ/2⌉ + 1: the honest row-sum tolerance for ŝ = next_pow2(s)."""
    s_hat = next_pow2(s)
    return math.ceil(2.0**theta * DELTA) + (s_hat + 1) // 2 + 1


def norm_bits(eps: int) -> int:
    """k_n = ⌈log2(2ε + 1)⌉: the NORM table [0, 2^k_n) holds both slacks of |R − 2^θ| ≤ ε."""
    return (2 * eps).bit_length()


@dataclass(frozen=True)
class SoftmaxParams:
    """f = F (argument scale 2^-F), c = round(γ·2^F), θ (output scale), ε (row-sum tolerance),
    k_n (NORM table bits)."""

    f: int
    c: int
    theta: int
    eps: int
    k_n: int

    @property
    def lo_bits(self) -> int:
        return self.f - EXP_RES_BITS

    @property
    def hi_bits(self) -> int:
        return LIMB_BITS - self.lo_bits

    @property
    def gamma(self) -> float:
        """The temperature actually proven: c / 2^F (γ rounded)."""
        return self.c / 2.0**self.f

    def l1_bound(self, s: int) -> float:
        """2^-θ·(ε + ŝ) + 2Δ: the L1 distance any accepted row can have from the true softmax
        of (c/2^F)·S (an accepted row sums to 2^θ ± ε, each entry carries a relative error
        below Δ and an absolute one of ½)."""
        return (self.eps + next_pow2(s)) / 2.0**self.theta + 2 * DELTA

    @staticmethod
    def derive(s: int, m: int, gamma: float, theta: int = THETA) -> SoftmaxParams:
        """Parameters for s tokens, head dimension m and logit scale γ (logit = γ·S).

        F = min(25, ⌊log2(2^28/(γ·S_max))⌋): the largest F ≤ 25 with c·S_max ≤ 2^28 (lowered
        by one more when rounding c up crosses 2^28). Raises ValueError when no valid
        parameters exist.
        """
        if s < 1 or m < 1:
            raise ValueError(f"softmax needs s, m ≥ 1; got s = {s}, m = {m}")
        if not (math.isfinite(gamma) and gamma > 0):
            raise ValueError(f"softmax needs a positive finite γ; got {gamma}")
        bound = s_max(m)
        f = min(F_MAX, math.floor(math.log2(2.0**U_HEADROOM_BITS / (gamma * bound))))
        while f >= F_MIN and round(gamma * 2.0**f) * bound > 1 << U_HEADROOM_BITS:
            f -= 1
        if f < F_MIN:
            raise ValueError(
                f"γ = {gamma} with m = {m} needs F = {f} < {F_MIN}: the scores' range "
                f"γ·S_max = {gamma * bound:.4g} is too wide for a 2^-{F_MIN} exp resolution"
            )
        eps = epsilon(s, theta)
        params = SoftmaxParams(f, round(gamma * 2.0**f), theta, eps, norm_bits(eps))
        problem = params.problem(s, m)
        if problem is not None:
            raise ValueError(f"no softmax parameters for s = {s}, m = {m}, γ = {gamma}: {problem}")
        return params

    def problem(self, s: int, m: int) -> str | None:
        """Why these parameters are unsound or inconsistent for (s, m), or None."""
        from cairn.prover.softmax.tables import EXP_TABLE_ROOTS  # tables imports this module

        s_hat = next_pow2(s)
        if s < 1 or m < 1:
            return f"s = {s}, m = {m}: both must be ≥ 1"
        if not F_MIN <= self.f <= F_MAX:
            return f"F = {self.f} not in [{F_MIN}, {F_MAX}]"
        if self.c < 1:
            return f"c = {self.c} < 1 (γ·2^F rounds to 0)"
        if self.c * s_max(m) > 1 << U_HEADROOM_BITS:
            return f"c·S_max = {self.c * s_max(m)} > 2^{U_HEADROOM_BITS}"
        if s_hat << self.theta > 1 << U_BITS:
            return f"ŝ·2^θ = {s_hat}·2^{self.theta} > 2^{U_BITS}: a row sum could wrap"
        if self.theta not in EXP_TABLE_ROOTS:
            return f"no fixed exp table for θ = {self.theta} (have {sorted(EXP_TABLE_ROOTS)})"
        if self.eps != epsilon(s, self.theta):
            return f"ε = {self.eps}, expected {epsilon(s, self.theta)} for ŝ = {s_hat}"
        if self.k_n != norm_bits(self.eps):
            return f"k_n = {self.k_n}, expected ⌈log2(2ε+1)⌉ = {norm_bits(self.eps)}"
        return None

    def check(self, s: int, m: int) -> None:
        """The verifier's check of the statement's parameters (`softmax.params`)."""
        problem = self.problem(s, m)
        if problem is not None:
            raise VerificationError("softmax.params", problem)
