"""Public parameters of the integer LayerNorm and what the verifier derives from them
(docs/layers/layernorm.md, "Integer semantics").

A row h of d integers has public statistics S1 = Σh and S2 = Σh² (published as limb sums), the
rounded mean μ = ⌊(2·S1 + d)/(2d)⌋ and the factor r = isqrt(⌊2^(2R)·d² / max(1, V + d²E)⌋),
V = d·S2 − S1². The layer proves y = R(R((h − μ)·r; k_n, b_n)·γ; k_z, b_z) + β with two
requantization gadgets (prover/layers/requant). Whatever the row, |(h − μ)·r| ≤ 2^(R+1)·√(d−1)
(the page derives it), which fixes the first gadget's input bound; the second reads the
clamped n (|n| ≤ 2^(b_n−1) − 1) times γ (|γ| ≤ 2^g − 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cairn.prover.layers.requant.params import RequantParams
from cairn.prover.walk.statement import Statement

VALUE_BITS = 30
"""Every statistic and product the proof establishes stays below 2^30 in magnitude."""
MAX_SHIFT = 30
"""R ≤ 30: 2^(R+1)·√(d−1) must stay below 2^30 anyway (d ≥ 2)."""


@dataclass(frozen=True)
class LayerNormParams:
    """d: row length; w: limb bits (h = lo + 2^w·hi, lo ∈ [0, 2^w), hi ∈ [−2^(w−1), 2^(w−1)),
    so h ∈ [−2^(2w−1), 2^(2w−1))); R: the factor's shift; E: ε at scale 2^(2f_h); k_n, b_n:
    the normalising requantization; g: |γ| ≤ 2^g − 1; k_z, b_z: the scaling one."""

    d: int
    limb_bits: int
    shift: int
    eps: int
    norm_shift: int
    norm_bits: int
    gamma_bits: int
    scale_shift: int
    scale_bits: int

    @property
    def h_range(self) -> tuple[int, int]:
        """[lo, hi] of h: what two limbs in range can rebuild."""
        half = 1 << (2 * self.limb_bits - 1)
        return -half, half - 1

    @property
    def offset(self) -> int:
        """hi + 2^(w−1) ∈ [0, 2^w): the high limb enters the LIMB table shifted."""
        return 1 << (self.limb_bits - 1)

    @property
    def norm_bound(self) -> int:
        """⌊2^(R+1)·√(d−1)⌋ ≥ |(h − μ)·r| for every row."""
        return math.isqrt((self.d - 1) << (2 * self.shift + 2))

    @property
    def norm(self) -> RequantParams:
        """n = R((h − μ)·r; k_n, b_n)."""
        return RequantParams(1, self.norm_shift, self.norm_bits, self.norm_bound)

    @property
    def gamma_bound(self) -> int:
        return (1 << self.gamma_bits) - 1

    @property
    def scale(self) -> RequantParams:
        """z = R(n·γ; k_z, b_z), |n·γ| ≤ (2^(b_n−1) − 1)·(2^g − 1)."""
        bound = self.norm.clamp * self.gamma_bound
        return RequantParams(1, self.scale_shift, self.scale_bits, bound)

    def row_sum_bound(self) -> int:
        """|S1| ≤ d·2^(2w−1)."""
        return self.d << (2 * self.limb_bits - 1)

    def limb_sum_bound(self) -> int:
        """Every |limb sum| ≤ d·(2^w − 1)² (Σlo², the largest)."""
        return self.d * ((1 << self.limb_bits) - 1) ** 2

    def problem(self) -> str | None:
        """Why the parameters are invalid or a relation could wrap mod p (`layernorm.params`),
        or None."""
        if self.d < 1 or self.limb_bits < 1 or self.eps < 0 or not 0 <= self.gamma_bits <= 30:
            return f"d, w ≥ 1, E ≥ 0 and 0 ≤ g ≤ 30 are required: {self}"
        # w > 15 alone makes d·4^w > 2^30 (d ≥ 1): no 2w-bit integer is built for a huge w.
        if 2 * self.limb_bits > VALUE_BITS or self.d << (2 * self.limb_bits) > 1 << VALUE_BITS:
            return f"d·4^w > 2^{VALUE_BITS} (d = {self.d}, w = {self.limb_bits}): sums could wrap"
        if not 0 <= self.shift <= MAX_SHIFT:
            return f"R = {self.shift} must be in [0, {MAX_SHIFT}]"
        for name, gadget in (("normalise", lambda: self.norm), ("scale", lambda: self.scale)):
            p = gadget()  # scale's bound reads normalise's clamp: only once normalise is valid
            if problem := p.problem() or p.range_problem() or p.table_problem():
                return f"{name}: {problem}"
        return None


def params_of(st: Statement) -> LayerNormParams:
    """dims = (s, d, w, R, E, k_n, b_n, g, k_z, b_z)."""
    return LayerNormParams(*st.dims[1:])


def shape_of(st: Statement) -> tuple[int, int]:
    """(s, d): h, y are s × d."""
    return st.dims[0], st.dims[1]
