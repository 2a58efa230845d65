"""Public parameters of the GELU lookup y = T[x] and what the verifier derives from them
(docs/layers/gelu.md, "Integer semantics").

T is `table.gelu_table(f_in, b_in, f_out, b_out)`: one row per input g of b_in signed bits,
g ∈ [−2^(b_in−1), 2^(b_in−1)), row g + 2^(b_in−1) holding GELU(g·2^−f_in)·2^f_out rounded and
clamped to b_out signed bits. The verifier rebuilds T from these four numbers; nothing about
the table is read from a proof.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.layers.gelu.table import gelu_table
from cairn.prover.mle import tensor_vars
from cairn.prover.walk.statement import Statement

IN_BITS_MAX = 20
"""The table has at most 2^20 rows (the verifier evaluates its MLE in O(2^b_in))."""
OUT_BITS_MAX = 16
"""|y| < 2^15: every entry the clamp lets through is computed in float64 with an error below
2^−30, far inside the 10^−9 margin table.gelu_table keeps from rounding ties."""
SCALE_MAX = 30
"""0 ≤ f_in, f_out ≤ 30: x = g·2^−f_in and G = x·2^f_out are exact in float64 (|G| < 2^49)."""
SCALE_GAP_MAX = 18
"""f_in − f_out ≤ 18, table.gelu_table's own rule."""


@dataclass(frozen=True)
class GeluParams:
    """Input scale f_in and signed bits b_in, output scale f_out and signed bits b_out."""

    f_in: int
    b_in: int
    f_out: int
    b_out: int

    @property
    def offset(self) -> int:
        """2^(b_in−1): input g sits at table row g + 2^(b_in−1)."""
        return 1 << (self.b_in - 1)

    @property
    def clamp(self) -> int:
        """C = 2^(b_out−1) − 1: every output lies in [−C, C]."""
        return (1 << (self.b_out - 1)) - 1

    def table(self) -> np.ndarray:
        """T (2^b_in rows, read-only, cached); call only once `problem` is None."""
        return gelu_table(self.f_in, self.b_in, self.f_out, self.b_out)

    def problem(self) -> str | None:
        """Why these parameters are refused (`gelu.params`), or None. Builds the table, which
        refuses an entry it cannot round reproducibly."""
        if not 1 <= self.b_in <= IN_BITS_MAX or not 1 <= self.b_out <= OUT_BITS_MAX:
            return (
                f"b_in = {self.b_in} must be in [1, {IN_BITS_MAX}] "
                f"and b_out = {self.b_out} in [1, {OUT_BITS_MAX}]"
            )
        scales = (self.f_in, self.f_out)
        if not all(0 <= f <= SCALE_MAX for f in scales) or self.f_in - self.f_out > SCALE_GAP_MAX:
            return (
                f"f_in = {self.f_in}, f_out = {self.f_out}: need both in [0, {SCALE_MAX}] "
                f"and f_in − f_out ≤ {SCALE_GAP_MAX}"
            )
        try:
            self.table()
        except ValueError as e:
            return str(e)
        return None


def params_of(st: Statement) -> GeluParams:
    """dims = (rows, cols, f_in, b_in, f_out, b_out)."""
    return GeluParams(*st.dims[2:])


def entry_vars(st: Statement) -> int:
    """n: the padded input has 2^n entries."""
    return tensor_vars(st.dims[:2])
