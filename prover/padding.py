"""Zero entries of committed tables outside a box (docs/claim-walk.md, "Committed tensors").

A commitment binds a tensor's padded table, padding included, and a kind's check that reads a
public tensor's rows beyond its real ones (qkv-decode's empty cache rows, posenc's padding
rows of x) cannot read a committed one; nor can a model walk assume a committed input's
padding is zero (docs/model-walk.md, "Committed inputs and outputs"). One degree-3 sum-check
shows every entry outside the box [0, b_1) × … × [0, b_k) is zero in every table of one padded
shape, batched by powers of λ:

    0 = Σ_{x ∈ {0,1}^n} eq(x, r)·Z(x)·Σ_i λ^i·T_i(x),

Z = 1 outside the box (padding included). It ends at p with the tables' values T_i(p), which
become claims on them; the verifier computes Z(p) = 1 − Π_d M_(b_d)(p_d) in O(n), p_d the
variables of dimension d. The rows from `start` on are the box (start, ĥ) of an l̂ × ĥ table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.mle import eq_eval, eq_table, prefix_mask, tensor_vars
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.sumcheck.verifier import verify_sumcheck

DEGREE = 3  # eq·Z·T


@dataclass(frozen=True)
class EmptyRowsProof:
    """The sum-check, then every table's value at its point p (in the tables' order)."""

    sumcheck: SumcheckProof
    values: list[QM31]


def outside_table(shape: Sequence[int], box: Sequence[int]) -> QM31Array:
    """Z on a padded table of `shape`, row-major: 1 outside the box."""
    inside = np.ones(1, dtype=bool)
    for n, b in zip(shape, box, strict=True):
        inside = np.logical_and.outer(inside, np.arange(n) < b).ravel()
    return QM31Array.from_base((~inside).astype(np.int64))


def _powers(lam: QM31, count: int) -> list[QM31]:
    out = [QM31.one()]
    for _ in range(count - 1):
        out.append(out[-1] * lam)
    return out


def prove_empty_rows(
    tables: Sequence[np.ndarray], start: int, channel: Channel
) -> tuple[EmptyRowsProof, list[QM31]]:
    """tables: padded l̂ × ĥ canonical tables of one shape. Returns the proof and p."""
    return prove_outside_zero(tables, (start, tables[0].shape[1]), channel)


def prove_outside_zero(
    tables: Sequence[np.ndarray], box: Sequence[int], channel: Channel
) -> tuple[EmptyRowsProof, list[QM31]]:
    """tables: padded canonical tables of one shape, zero outside `box`. Returns the proof
    and p."""
    shape = tables[0].shape
    r = channel.draw_secure_felts(tensor_vars(shape))
    lam = channel.draw_secure_felt()
    mles = [
        eq_table(r),
        outside_table(shape, box),
        *(QM31Array.from_base(t.ravel()) for t in tables),
    ]
    powers = _powers(lam, len(tables))
    products = [Product((0, 1, 2 + i), powers[i]) for i in range(len(tables))]
    sumcheck, point, finals = prove_sumcheck(mles, products, channel)
    proof = EmptyRowsProof(sumcheck, finals[2:])
    channel.mix_felts(proof.values)
    return proof, point


def verify_empty_rows(
    proof: EmptyRowsProof, count: int, start: int, row_vars: int, col_vars: int, channel: Channel
) -> list[QM31]:
    """`padding.empty_rows` unless the sum-check of `count` tables ends at
    eq(p, r)·Z(p_x)·Σ_i λ^i·T_i(p). Returns p."""
    return verify_outside_zero(proof, count, (start, 1 << col_vars), (row_vars, col_vars), channel)


def verify_outside_zero(
    proof: EmptyRowsProof,
    count: int,
    box: Sequence[int],
    dim_vars: Sequence[int],
    channel: Channel,
) -> list[QM31]:
    """`padding.empty_rows` unless the sum-check of `count` tables (dimension d on
    `dim_vars[d]` variables) ends at eq(p, r)·Z(p)·Σ_i λ^i·T_i(p). Returns p."""
    if len(proof.values) != count:
        raise VerificationError("padding.empty_rows", f"{len(proof.values)} values for {count}")
    n = sum(dim_vars)
    r = channel.draw_secure_felts(n)
    lam = channel.draw_secure_felt()
    point, final = verify_sumcheck(QM31.zero(), proof.sumcheck, n, DEGREE, channel)
    channel.mix_felts(proof.values)
    inside, at = QM31.one(), 0
    for b, k in zip(box, dim_vars, strict=True):
        inside = inside * prefix_mask(point[at : at + k], b)
        at += k
    empty = QM31.one() - inside
    total = QM31.zero()
    for power, value in zip(_powers(lam, count), proof.values, strict=True):
        total = total + power * value
    if final != eq_eval(r, point) * empty * total:
        raise VerificationError("padding.empty_rows", "a committed table's empty rows are not zero")
    return point


def expect_empty_rows(proof: EmptyRowsProof | None, needed: bool) -> None:
    """`padding.empty_rows` unless the proof is present exactly when a table is committed."""
    if (proof is not None) != needed:
        raise VerificationError(
            "padding.empty_rows", "an empty-rows proof exactly when a table is committed"
        )
