"""GELU as a table lookup, y = T[x + 2^(b_in−1)] entry by entry, for x of b_in signed bits and
T = table.gelu_table(f_in, b_in, f_out, b_out) (docs/layers/gelu.md). The lookup itself
proves x within b_in bits, so the statement check reads no tensor value: only y's bound
2^(b_out−1) − 1 is declared, which the table guarantees whatever x is."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.layers.gelu import soundness
from cairn.prover.layers.gelu.params import GeluParams, entry_vars, params_of
from cairn.prover.layers.gelu.table import pinned_commitment, table_commitment, table_name
from cairn.prover.layers.gelu.verifier import check_commitments
from cairn.prover.pcs.stack import witness_hash
from cairn.prover.ranges import Relation, Tensors, pow2
from cairn.prover.walk.layer import FixedTable
from cairn.prover.walk.statement import Statement, expect_ranges, expect_shapes

KIND = "gelu"
DIM_NAMES = ("rows", "cols", "f_in", "b_in", "f_out", "b_out")
N_DIMS = 6


def _out_bound(_: Tensors, dims: Sequence[int]) -> int:
    """|y| ≤ 2^(b_out−1) − 1, whatever x: every table entry is clamped to it."""
    return pow2(dims[5] - 1) - 1


RELATIONS = (Relation("|y| ≤ 2^(b_out−1) − 1", (), _out_bound, result="y"),)
"""y = T[x] is a lookup, not a sum of products: nothing can wrap. The relation only declares
the bound a consumer of y may assume (b_out = 12 keeps it far below (p−1)/2)."""


def lookup(x: np.ndarray, p: GeluParams) -> np.ndarray:
    """T[x + 2^(b_in−1)] entry by entry; x must lie in [−2^(b_in−1), 2^(b_in−1))."""
    x = np.asarray(x, dtype=np.int64)
    if x.size and (x.min() < -p.offset or x.max() >= p.offset):
        raise ValueError(f"x has entries beyond b_in = {p.b_in} signed bits")
    return p.table()[x + p.offset]


def multiplicities(x: np.ndarray, p: GeluParams) -> np.ndarray:
    """How often each table row is looked up by the (padded) x; inputs outside the table are
    not counted, which only matters to a cheating prover."""
    rows = np.asarray(x, dtype=np.int64).ravel() + p.offset
    rows = rows[(rows >= 0) & (rows < 1 << p.b_in)]
    return np.bincount(rows, minlength=1 << p.b_in).astype(np.int64)


def make_statement(x: np.ndarray, f_in: int, b_in: int, f_out: int, b_out: int) -> Statement:
    """x: a 2-D integer tensor of b_in signed bits at scale 2^−f_in; y at scale 2^−f_out."""
    x = np.asarray(x, dtype=np.int64)
    if x.ndim != 2 or 0 in x.shape:
        raise ValueError(f"gelu takes a non-empty 2-D input, not shape {x.shape}")
    p = GeluParams(f_in, b_in, f_out, b_out)
    if problem := p.problem():
        raise ValueError(problem)
    return Statement(KIND, (*x.shape, f_in, b_in, f_out, b_out), {"x": x}, {"y": lookup(x, p)}, {})


def error_terms(st: Statement) -> dict[str, float]:
    """The soundness error terms of this statement's proof (docs/layers/gelu.md)."""
    return soundness.error_terms(entry_vars(st), params_of(st))


def tables(st: Statement) -> dict[str, FixedTable]:
    """The pinned GELU table of the statement's parameters, which the lookup's table claim
    falls on (only asked of a statement `check` accepted)."""
    key, hash_ = params_of(st).key, witness_hash(st.witness)
    pinned = pinned_commitment(key, hash_)
    return {table_name(key): FixedTable(pinned, lambda: table_commitment(key, hash_))}


def check(st: Statement) -> None:
    """The verifier's statement check: shapes, parameters and soundness, y's declared bound,
    the witness commitment. No tensor value is read (x may be hidden or unbounded)."""
    if len(st.dims) != N_DIMS or min(st.dims[:2]) < 1:
        raise VerificationError("statement.shape", f"gelu dims invalid: {st.dims}")
    shape = tuple(st.dims[:2])
    expect_shapes(st, "inputs", {"x": shape})
    expect_shapes(st, "outputs", {"y": shape})
    expect_shapes(st, "weights", {})
    p, n = params_of(st), entry_vars(st)
    if problem := p.problem() or soundness.security_problem(n, p):
        raise VerificationError("gelu.params", problem)
    expect_ranges(st, RELATIONS)
    check_commitments(n, p, st.witness)
