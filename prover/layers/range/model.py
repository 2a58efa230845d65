"""The statement: weights w00, w01, … (no inputs, no outputs) and each one's declared bit width in
the dims; what it proves lets a model walk read a committed weight at its bound 2^(b−1)
(prover/graph/views.py), so the relations reading it are checked (docs/layers/range.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.layers.range.relations import (
    LIMB_BITS,
    MAX_BITS,
    MAX_WEIGHTS,
    STACKS,
    RangeLayout,
    weight_name,
)
from cairn.prover.pcs.params import FIELD_BITS, WITNESS_PCS
from cairn.prover.pcs.stack import check_stacks
from cairn.prover.ranges import Relation
from cairn.prover.soundness import shortfall
from cairn.prover.walk.statement import Statement, expect_shapes

KIND = "range"
DIM_NAMES = ("bits, rank, shape per weight",)
RELATIONS: tuple[Relation, ...] = ()
"""A lookup: nothing can wrap."""
N_OPENING_CLAIMS = 2 * MAX_WEIGHTS + LIMB_BITS + (MAX_BITS - LIMB_BITS)
"""At most: two limbs per weight and a multiplicity per table width (1 … 16 whole, 1 … 14 hi)."""


def bits_of(w: np.ndarray) -> int:
    """The fewest signed bits holding every entry: −2^(b−1) ≤ w < 2^(b−1)."""
    w = np.asarray(w, dtype=np.int64)
    top = max(int(w.max(initial=0)), -int(w.min(initial=0)) - 1, 0)
    return top.bit_length() + 1


def make_statement(weights: Sequence[np.ndarray], bits: Sequence[int] | None = None) -> Statement:
    """Declare each weight within `bits` (default: its own fewest bits); ValueError if one is
    beyond its declared range or the statement is refused."""
    arrays = [np.asarray(w, dtype=np.int64) for w in weights]
    bits = [bits_of(w) for w in arrays] if bits is None else list(bits)
    dims: list[int] = []
    for w, b in zip(arrays, bits, strict=True):
        if b < bits_of(w):
            raise ValueError(f"a weight has entries beyond {b} signed bits")
        dims += [b, w.ndim, *w.shape]
    st = Statement(KIND, tuple(dims), {}, {}, {weight_name(i): w for i, w in enumerate(arrays)})
    try:
        check_public(st)
    except VerificationError as e:
        raise ValueError(str(e)) from None
    return st


def error_terms(st: Statement) -> dict[str, float]:
    """LogUp per width ((lookups + rows)/|F|), the GKR layers (Σ_j (3j + I + 1)/|F|) and each
    split weight's limb identity at the leaves' point (n/|F|)."""
    layout = RangeLayout.of(st.dims)
    field = 2.0**-FIELD_BITS
    cols, n_vars = layout.columns, layout.instance_vars()
    lookups = sum(1 << c.n_vars for c in cols) + sum(1 << w for w in layout.widths)
    gkr = sum(3 * j + len(n_vars) + 1 for j in range(max(n_vars)))
    limbs = sum(d.n_vars for d in layout.weights if d.split)
    return {
        "LogUp (per width)": lookups * field,
        "GKR layers": gkr * field,
        "limb identities": limbs * field,
    }


def check_public(st: Statement) -> None:
    layout = RangeLayout.of(st.dims)
    expect_shapes(st, "inputs", {})
    expect_shapes(st, "outputs", {})
    expect_shapes(st, "weights", {weight_name(i): d.shape for i, d in enumerate(layout.weights)})
    if problem := shortfall(lambda: error_terms(st), layout.witness):
        raise VerificationError("range.params", problem)


def check(st: Statement) -> None:
    """Shapes and widths, soundness, then the witness: exactly the layout's Blake2s stacks
    (`range.commitment`)."""
    check_public(st)
    check_stacks(STACKS, RangeLayout.of(st.dims).witness(), WITNESS_PCS.hash, st.witness)
