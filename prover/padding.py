"""Zero rows of committed tables (docs/claim-walk.md, "Committed tensors").

A commitment binds a tensor's padded table, padding included, and a kind's check that reads a
public tensor's rows beyond its real ones (qkv-decode's empty cache rows, posenc's padding
rows of x) cannot read a committed one. One degree-3 sum-check shows the rows from `start` on
are zero in every table of one l̂ × ĥ shape, batched by powers of λ:

    0 = Σ_{x ∈ {0,1}^L} Σ_{y ∈ {0,1}^H} eq(x‖y, r)·Z(x)·Σ_i λ^i·T_i(x, y),

Z = 1 on the rows x ≥ start (padding rows included). It ends at p with the tables' values
T_i(p), which become claims on them; the verifier computes Z(p_x) = 1 − M_start(p_x) in O(L).
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


def empty_rows_table(rows: int, cols: int, start: int) -> QM31Array:
    """Z on an l̂ × ĥ table, row-major: 1 on the rows from `start` on."""
    empty = np.zeros(rows, dtype=np.int64)
    empty[start:] = 1
    return QM31Array.from_base(np.repeat(empty, cols))


def _powers(lam: QM31, count: int) -> list[QM31]:
    out = [QM31.one()]
    for _ in range(count - 1):
        out.append(out[-1] * lam)
    return out


def prove_empty_rows(
    tables: Sequence[np.ndarray], start: int, channel: Channel
) -> tuple[EmptyRowsProof, list[QM31]]:
    """tables: padded l̂ × ĥ canonical tables of one shape. Returns the proof and p."""
    rows, cols = tables[0].shape
    r = channel.draw_secure_felts(tensor_vars((rows, cols)))
    lam = channel.draw_secure_felt()
    mles = [
        eq_table(r),
        empty_rows_table(rows, cols, start),
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
    if len(proof.values) != count:
        raise VerificationError("padding.empty_rows", f"{len(proof.values)} values for {count}")
    n = row_vars + col_vars
    r = channel.draw_secure_felts(n)
    lam = channel.draw_secure_felt()
    point, final = verify_sumcheck(QM31.zero(), proof.sumcheck, n, DEGREE, channel)
    channel.mix_felts(proof.values)
    empty = QM31.one() - prefix_mask(point[:row_vars], start)
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
