"""The statement: weights w00, w01, … (no inputs), each one's declared bit width (and whether its
column sums are declared) in the dims, and as outputs the summed weights' column sums of |w|;
what it proves lets a model walk read a committed weight at its declared magnitude and column
sums (prover/graph/views.py), so the relations reading it are checked (docs/layers/range.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.layers.range.relations import (
    LIMB_BITS,
    MAX_BITS,
    MAX_WEIGHTS,
    STACKS,
    Declared,
    RangeLayout,
    sums_name,
    weight_name,
)
from cairn.prover.mle import tensor_vars
from cairn.prover.pcs.params import FIELD_BITS
from cairn.prover.pcs.stack import check_stacks
from cairn.prover.ranges import Relation
from cairn.prover.soundness import shortfall
from cairn.prover.walk.statement import Statement, expect_shapes

KIND = "range"
DIM_NAMES = ("bits, summed, rank, shape per weight",)
SUMS = tuple(sums_name(i) for i in range(MAX_WEIGHTS))
"""The outputs a statement may have: views read their values, so they are never committed and in
a model walk public (`LayerSpec.reads`)."""
RELATIONS: tuple[Relation, ...] = ()
"""A lookup: nothing can wrap."""
N_OPENING_CLAIMS = 2 * MAX_WEIGHTS + 2 * LIMB_BITS + (MAX_BITS - LIMB_BITS)
"""At most: two per weight (two limbs, or |w| at the leaves' point and at the column sums') and
a multiplicity per table (paired 1 … 16, full 1 … 16)."""


def bits_of(w: np.ndarray, summed: bool = False) -> int:
    """The fewest bits declaring every entry: |w| ≤ 2^(b−1) − 1 if summed, else
    −2^(b−1) ≤ w < 2^(b−1)."""
    w = np.asarray(w, dtype=np.int64)
    top, bottom = int(w.max(initial=0)), -int(w.min(initial=0))
    return max(top, bottom if summed else bottom - 1, 0).bit_length() + 1


def make_statement(
    weights: Sequence[np.ndarray],
    bits: Sequence[int] | None = None,
    summed: Sequence[bool] | None = None,
) -> Statement:
    """Declare each weight within `bits` (default: its own fewest), with its column sums if
    `summed` (default: every weight of at most LIMB_BITS bits); ValueError if one is beyond its
    declared range or the statement is refused."""
    arrays = [np.asarray(w, dtype=np.int64) for w in weights]
    if summed is None:
        summed = [bits_of(w, True) <= LIMB_BITS for w in arrays]
    if bits is None:
        bits = [bits_of(w, s) for w, s in zip(arrays, summed, strict=True)]
    dims: list[int] = []
    for w, b, s in zip(arrays, bits, summed, strict=True):
        if b < bits_of(w, s):
            raise ValueError(f"a weight has entries beyond {b} signed bits")
        dims += Declared(b, s, w.shape).dims
    try:
        layout = RangeLayout.of(dims)
        declared = zip(layout.weights, arrays, strict=True)
        sums = {sums_name(i): d.sums(w) for i, (d, w) in enumerate(declared) if d.sums_shape}
        weights = {weight_name(i): w for i, w in enumerate(arrays)}
        st = Statement(KIND, tuple(dims), {}, sums, weights)
        check_public(st)
    except VerificationError as e:
        raise ValueError(str(e)) from None
    return st


def error_terms(st: Statement) -> dict[str, float]:
    """LogUp per table ((lookups + rows)/|F|, in α and β jointly), the GKR layers
    (Σ_j (3j + I + 1)/|F|), each split weight's limb identity at the leaves' point (n/|F|) and
    each column-sums identity at r (its variables/|F|)."""
    layout = RangeLayout.of(st.dims)
    field = 2.0**-FIELD_BITS
    cols, n_vars = layout.columns, layout.instance_vars()
    lookups = sum(1 << c.n_vars for c in cols) + sum(1 << t.width for t in layout.tables)
    gkr = sum(3 * j + len(n_vars) + 1 for j in range(max(n_vars)))
    limbs = sum(d.n_vars for d in layout.weights if d.split)
    sums = sum(tensor_vars(shape) for shape in layout.sums.values())
    return {
        "LogUp (per table)": lookups * field,
        "GKR layers": gkr * field,
        "limb identities": limbs * field,
        "column sums": sums * field,
    }


def check_public(st: Statement) -> None:
    layout = RangeLayout.of(st.dims)
    expect_shapes(st, "inputs", {})
    expect_shapes(st, "outputs", layout.sums)
    expect_shapes(st, "weights", {weight_name(i): d.shape for i, d in enumerate(layout.weights)})
    for i, d in enumerate(layout.weights):
        if not d.sums_shape:
            continue
        if d.sums_bound() > HALF:
            raise VerificationError("range.params", f"w{i:02d}: its column sums could wrap mod p")
        s = st.outputs[sums_name(i)]
        if s.size and not 0 <= s.min() <= s.max() <= d.sums_bound():
            raise VerificationError(
                "statement.range", f"{sums_name(i)}: a column sum outside [0, {d.sums_bound()}]"
            )
    if problem := shortfall(lambda: error_terms(st), layout.witness):
        raise VerificationError("range.params", problem)


def check(st: Statement) -> None:
    """Shapes and widths, soundness, then the witness: exactly the layout's stacks, one hash
    (`range.commitment`)."""
    check_public(st)
    check_stacks(STACKS, RangeLayout.of(st.dims).witness(), st.witness)
