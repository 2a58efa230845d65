"""Public parameters of the GELU lookup y = T[x] and what the verifier derives from them
(docs/layers/gelu.md, "Integer semantics").

T is `table.gelu_table(f_in, b_in, f_out, b_out)`: one row per input g of b_in signed bits,
g ∈ [−2^(b_in−1), 2^(b_in−1)), row g + 2^(b_in−1) holding GELU(g·2^−f_in)·2^f_out rounded and
clamped to b_out signed bits. The verifiers open T against its pinned commitment
(`table.PINNED_ROOTS`); nothing about the table is read from a proof.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.layers.gelu.table import (
    IN_BITS,
    OUT_BITS,
    PINNED_ROOTS,
    SCALE_DROP,
    Params,
    gelu_table,
    pinned_root,
)
from cairn.prover.mle import tensor_vars
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class GeluParams:
    """Input scale f_in and signed bits b_in, output scale f_out and signed bits b_out."""

    f_in: int
    b_in: int
    f_out: int
    b_out: int

    @property
    def key(self) -> Params:
        """(f_in, b_in, f_out, b_out): what names and pins the table."""
        return (self.f_in, self.b_in, self.f_out, self.b_out)

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
        """Why these parameters are refused (`gelu.params`), or None: only a table with a
        pinned commitment can be opened, so the pinned family is the whole rule (its tables
        are reproducible, 2^15 rows, outputs within 12 bits)."""
        if pinned_root(self.key) is None:
            lo, hi = min(PINNED_ROOTS), max(PINNED_ROOTS)
            return (
                f"no pinned GELU table for (f_in, b_in, f_out, b_out) = {self.key}: the pinned "
                f"ones have b_in = {IN_BITS}, b_out = {OUT_BITS}, f_out = f_in − {SCALE_DROP}, "
                f"{lo} ≤ f_in ≤ {hi}"
            )
        return None


def params_of(st: Statement) -> GeluParams:
    """dims = (rows, cols, f_in, b_in, f_out, b_out)."""
    return GeluParams(*st.dims[2:])


def entry_vars(st: Statement) -> int:
    """n: the padded input has 2^n entries."""
    return tensor_vars(st.dims[:2])
