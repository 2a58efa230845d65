"""Public parameters of requantization y = clamp(⌊(x·M + 2^(k−1))/2^k⌋, ±(2^(b−1) − 1)) and
what the verifier derives from them (docs/layers/requant.md, "Integer semantics").

The requant statement carries input bits a (|x| ≤ A = 2^a − 1) rather than the input's
maximum, so the table sizes are a function of the parameters alone (a gadget inside another
layer may bound |x| by any A its statement implies). With X = A·M, X + 2^(k−1) < 2^30 makes
x·M + 2^(k−1) = y'·2^k + r hold over the integers once r ∈ [0, 2^k) and y' in its admissible
interval [y'_lo, y'_hi] are range-checked: both sides then lie within 2X + 2^k < p of each
other.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.m31 import P
from cairn.prover.mle import tensor_vars
from cairn.prover.walk.statement import Statement

VALUE_BITS = 30
"""|x·M + 2^(k−1)| < 2^30: the integer relation cannot wrap mod p."""
BIT_SUM_MAX = 30
"""b + k ≤ 30 (docs/models/minilm.md: (y', r) unique in M31)."""
CLAMP_BITS_MAX = 20
"""The CLAMP table has at most 2^20 rows: the admissible y' interval, cut to a window around 0
when wider (`quotient_range`)."""


@dataclass(frozen=True)
class RequantParams:
    """multiplier M ∈ [1, p), shift k ≥ 1, output bits b ≥ 1, input bound A ≥ 0 (|x| ≤ A), and
    the quotient window: y' ∈ [−2^(w−1), 2^(w−1)) as well (1 ≤ w ≤ 20, `quotient_range`)."""

    multiplier: int
    shift: int
    bits: int
    bound: int
    window_bits: int = 20

    @staticmethod
    def of_bits(
        multiplier: int, shift: int, bits: int, in_bits: int, window_bits: int = 20
    ) -> RequantParams:
        """|x| ≤ A for input bits a: A = 2^a − 1, or less where that much could wrap — the
        largest A with A·M + 2^(k−1) < 2^30 (for a valid M and k). A producer's bound a few
        percent under 2^30/M then still fits, which a power of two would round away."""
        bound = (1 << min(in_bits, VALUE_BITS + 1)) - 1
        if multiplier >= 1 and 1 <= shift <= VALUE_BITS and in_bits <= VALUE_BITS:
            bound = min(bound, ((1 << VALUE_BITS) - 1 - (1 << (shift - 1))) // multiplier)
        return RequantParams(multiplier, shift, bits, bound, window_bits)

    @property
    def lo_bits(self) -> int:
        """r = r0 + 2^⌈k/2⌉·r1 with r0 < 2^⌈k/2⌉ (the RANGE table's bits) ..."""
        return (self.shift + 1) // 2

    @property
    def hi_bits(self) -> int:
        """... and r1 < 2^⌊k/2⌋, checked as r1 < 2^⌈k/2⌉ and r1 + δ < 2^⌈k/2⌉."""
        return self.shift // 2

    @property
    def delta(self) -> int:
        """δ = 2^⌈k/2⌉ − 2^⌊k/2⌋ (0 for even k, 2^⌊k/2⌋ for odd k)."""
        return (1 << self.lo_bits) - (1 << self.hi_bits)

    @property
    def half(self) -> int:
        return 1 << (self.shift - 1)

    @property
    def clamp(self) -> int:
        """C = 2^(b−1) − 1: y ∈ [−C, C]."""
        return (1 << (self.bits - 1)) - 1

    @property
    def quotient_range(self) -> tuple[int, int]:
        """[y'_lo, y'_hi]: every ⌊(x·M + 2^(k−1))/2^k⌋ with |x| ≤ A, cut to the window of 2^w
        quotients around 0. A wide A is a verifier's worst case (a hidden input bounded by its
        producer), far above the values a calibrated model meets; the prover states the
        narrowest window its quotients fit and refuses an overflow beyond 2^20
        (docs/layers/requant.md, "Quotient window")."""
        lo, hi = self._quotients
        window = 1 << (self.window_bits - 1)
        return max(lo, -window), min(hi, window - 1)

    @property
    def _quotients(self) -> tuple[int, int]:
        x = self.bound * self.multiplier
        return (-x + self.half) >> self.shift, (x + self.half) >> self.shift

    @property
    def windowed(self) -> bool:
        """Whether some |x| ≤ A has its quotient outside `quotient_range`."""
        return self._quotients != self.quotient_range

    @property
    def table_bits(self) -> int:
        """t: 2^t > y'_hi − y'_lo, at least 1."""
        lo, hi = self.quotient_range
        return max(1, (hi - lo).bit_length())

    def requantize(self, x: int) -> tuple[int, int]:
        """(y', r) of one integer input."""
        value = x * self.multiplier + self.half
        return value >> self.shift, value & ((1 << self.shift) - 1)

    def range_problem(self) -> str | None:
        """Why x·M + 2^(k−1) could wrap mod p (`statement.range`), or None."""
        top = self.bound * self.multiplier + self.half
        if top >= 1 << VALUE_BITS:
            return f"A·M + 2^(k−1) = {top} ≥ 2^{VALUE_BITS}: x·M could wrap mod p"
        return None

    def problem(self) -> str | None:
        """Why M, k, b, A are invalid (`requant.params`), or None; range_problem and
        table_problem assume they are valid."""
        if not 1 <= self.multiplier < P or not 0 <= self.bound < 1 << VALUE_BITS:
            return (
                f"M = {self.multiplier} must be in [1, p) (invertible) "
                f"and A = {self.bound} in [0, 2^{VALUE_BITS})"
            )
        if self.shift < 1 or self.bits < 1:
            return f"k = {self.shift} and b = {self.bits} must be ≥ 1"
        if not 1 <= self.window_bits <= CLAMP_BITS_MAX:
            return f"w = {self.window_bits} must lie in [1, {CLAMP_BITS_MAX}]"
        if self.shift + self.bits > BIT_SUM_MAX:
            return f"b + k = {self.bits + self.shift} > {BIT_SUM_MAX}"
        return None

    @classmethod
    def fit(cls, bound: int, peak: int, bits: int) -> RequantParams:
        """The finest (M, k) that maps `peak` (the largest |x| seen) to about the clamp, for
        inputs bounded by `bound` (so A = 2^a − 1 ≥ bound, and A·M + 2^(k−1) < 2^30)."""
        a = bound.bit_length()
        for shift in range(BIT_SUM_MAX - bits, 0, -1):
            multiplier = max(1, round(((1 << (bits - 1)) - 1) * 2**shift / max(peak, 1)))
            p = cls.of_bits(multiplier, shift, bits, a)
            if p.bound >= bound and p.problem() is None and p.table_problem() is None:
                return p
        raise ValueError(f"no requantization of |x| ≤ {bound} to {bits} bits fits 2^{VALUE_BITS}")

    def table_problem(self) -> str | None:
        """Why the CLAMP table would be too large (`requant.params`), or None."""
        if self.table_bits > CLAMP_BITS_MAX:
            return f"the CLAMP table needs 2^{self.table_bits} > 2^{CLAMP_BITS_MAX} rows"
        return None


def params_of(st: Statement) -> RequantParams:
    """dims = (rows, cols, M, k, b, a, w)."""
    return RequantParams.of_bits(*st.dims[2:])


def entry_vars(st: Statement) -> int:
    """n: the padded input has 2^n entries."""
    return tensor_vars(st.dims[:2])
