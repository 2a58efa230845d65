"""The range proof's lookups and witness layout, written once for the prover (on columns) and the
verifier (on the leaves' claimed values and the tables' closed forms).

Weight w_i of b_i bits is looked up through the key v = w_i + 2^(b_i−1) ∈ [0, 2^b_i): whole when
b_i ≤ LIMB_BITS, else as the limbs lo = v mod 2^16 and hi = ⌊v / 2^16⌋ of widths 16 and b_i − 16,
which the prover commits. Every looked-up column of width c is a LogUp witness instance against
the table [0, 2^c), one relation per width with its own challenge α_c. Instances, in this order:
the columns (weights in index order; a split weight's lo, then hi), then the tables by width
(docs/layers/range.md, "Relations").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.lookups.prover import Fractions
from cairn.prover.lookups.verifier import LeafClaim
from cairn.prover.mle import pad_tensor, tensor_vars
from cairn.prover.pcs.stack import StackLayout, stack_claims
from cairn.prover.softmax.relations import STACK_VARS
from cairn.prover.softmax.structured import index_mle

TAG = "cairn/range/v1"
"""The domain tag of the Blake2s sub-transcript forked from the walk."""
STACKS = "range"  # the statement names the witness stacks range.0, range.1, …
LIMB_BITS = 16
"""The widest table: a weight of more bits is split into two limbs."""
MAX_BITS = 30
"""2^(30−1) = 2^29 keeps the declared bound within (p−1)/2."""
MAX_WEIGHTS = 32
MAX_RANK = 4


def weight_name(i: int) -> str:
    """w00, w01, …: name order is index order."""
    return f"w{i:02d}"


@dataclass(frozen=True)
class Declared:
    """One weight's declared range: every entry in [−2^(bits−1), 2^(bits−1))."""

    bits: int
    shape: tuple[int, ...]

    @property
    def n_vars(self) -> int:
        return tensor_vars(self.shape)

    @property
    def offset(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def split(self) -> bool:
        return self.bits > LIMB_BITS


def parse_dims(dims: Sequence[int]) -> list[Declared]:
    """dims = (b_0, rank_0, *shape_0, b_1, rank_1, *shape_1, …); `statement.shape` unless they
    parse into 1 … MAX_WEIGHTS weights of rank 1 … MAX_RANK and dims ≥ 1, `range.params` unless
    every 1 ≤ b ≤ MAX_BITS."""
    out, i = [], 0
    while i < len(dims):
        if i + 2 > len(dims) or not 1 <= dims[i + 1] <= MAX_RANK:
            raise VerificationError("statement.shape", f"range dims {tuple(dims)} do not parse")
        bits, rank = dims[i], dims[i + 1]
        shape = tuple(dims[i + 2 : i + 2 + rank])
        if len(shape) != rank or min(shape) < 1:
            raise VerificationError("statement.shape", f"range dims {tuple(dims)} do not parse")
        if not 1 <= bits <= MAX_BITS:
            raise VerificationError("range.params", f"{bits} bits: not in [1, {MAX_BITS}]")
        out.append(Declared(bits, shape))
        i += 2 + rank
    if not 1 <= len(out) <= MAX_WEIGHTS:
        raise VerificationError("statement.shape", f"range takes 1 to {MAX_WEIGHTS} weights")
    return out


@dataclass(frozen=True)
class Column:
    """A looked-up column: weight `weight`'s key whole ("v") or one of its limbs ("lo", "hi")."""

    weight: int
    part: str
    width: int
    n_vars: int

    @property
    def name(self) -> str:
        return f"{self.part}{self.weight:02d}"


@dataclass(frozen=True)
class RangeLayout:
    """The lookups a statement's declared ranges need, derived from its dims alone."""

    weights: tuple[Declared, ...]

    @staticmethod
    def of(dims: Sequence[int]) -> RangeLayout:
        return RangeLayout(tuple(parse_dims(dims)))

    @property
    def columns(self) -> list[Column]:
        out = []
        for i, d in enumerate(self.weights):
            if d.split:
                out.append(Column(i, "lo", LIMB_BITS, d.n_vars))
                out.append(Column(i, "hi", d.bits - LIMB_BITS, d.n_vars))
            else:
                out.append(Column(i, "v", d.bits, d.n_vars))
        return out

    @property
    def widths(self) -> list[int]:
        """The tables' widths, ascending."""
        return sorted({c.width for c in self.columns})

    def instance_vars(self) -> list[int]:
        return [c.n_vars for c in self.columns] + self.widths

    def balanced(self) -> list[tuple[list[int], list[int]]]:
        """Per width: its columns' instances against its table's (lookups.check_balance)."""
        cols = self.columns
        return [
            ([i for i, c in enumerate(cols) if c.width == w], [len(cols) + j])
            for j, w in enumerate(self.widths)
        ]

    def witness(self) -> StackLayout:
        """The committed columns: a multiplicity m<c> per table, the split weights' limbs."""
        column_vars = {f"m{w:02d}": w for w in self.widths}
        column_vars |= {c.name: c.n_vars for c in self.columns if c.part != "v"}
        return StackLayout.of(column_vars, STACK_VARS)

    def keys(self, weights: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
        """Every column's values on the padded hypercube (the prover's)."""
        out = {}
        for c in self.columns:
            d = self.weights[c.weight]
            v = pad_tensor(np.asarray(weights[c.weight], dtype=np.int64)).ravel() + d.offset
            out[c.name] = {"v": v, "lo": v & 0xFFFF, "hi": v >> LIMB_BITS}[c.part]
        return out

    def multiplicities(self, keys: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """How often each table row is looked up; keys outside a table are not counted (only a
        cheating prover has them, and its lookup then fails)."""
        out = {}
        for w in self.widths:
            rows = np.concatenate([keys[c.name] for c in self.columns if c.width == w])
            rows = rows[(rows >= 0) & (rows < 1 << w)]
            out[f"m{w:02d}"] = np.bincount(rows, minlength=1 << w).astype(np.int64)
        return out


def draw_alphas(channel: Channel, layout: RangeLayout) -> dict[int, QM31]:
    """α_c per table width, ascending, drawn first on the fork."""
    return dict(zip(layout.widths, channel.draw_secure_felts(len(layout.widths)), strict=True))


def fractions(
    layout: RangeLayout, alphas: dict[int, QM31], keys: dict[str, np.ndarray], counts: dict
) -> list[Fractions]:
    """The instances in layout order: 1/(α_c − v) per column entry, m(t)/(α_c − t) per row."""
    out = [
        Fractions(None, -QM31Array.from_signed(keys[c.name]) + alphas[c.width])
        for c in layout.columns
    ]
    for w in layout.widths:
        rows = -QM31Array.from_signed(np.arange(1 << w, dtype=np.int64)) + alphas[w]
        out.append(Fractions(QM31Array.from_signed(counts[f"m{w:02d}"]), rows))
    return out


def leaf_claims(
    layout: RangeLayout, alphas: dict[int, QM31], leaves: Sequence[LeafClaim]
) -> tuple[dict[str, list[Claim]], dict[str, list[Claim]]]:
    """`logup.numerator` unless every column leaf's numerator is 1, `range.table` unless every
    table leaf's denominator is α_c − t̃(ρ_c) (t̃ the index MLE); then the claims the leaves
    make, on the weights and on the witness stacks: a column's value is α_c − its denominator,
    a whole key is w̃ + 2^(b−1), limbs give w̃ = 2^16·hĩ + lõ − 2^(b−1) at their common point,
    and a table's numerator is its multiplicity m̃_c(ρ_c)."""
    cols = layout.columns
    values: dict[str, tuple[tuple[QM31, ...], QM31]] = {}
    for c, leaf in zip(cols, leaves, strict=False):
        if leaf.numerator != QM31.one():
            raise VerificationError("logup.numerator", f"column {c.name}: a numerator is not 1")
        values[c.name] = (tuple(leaf.point), alphas[c.width] - leaf.denominator)
    witness: dict[str, list[Claim]] = {}
    for w, leaf in zip(layout.widths, leaves[len(cols) :], strict=True):
        if leaf.denominator != alphas[w] - index_mle(leaf.point):
            raise VerificationError("range.table", f"the table of width {w} is not [0, 2^{w})")
        witness[f"m{w:02d}"] = [Claim(tuple(leaf.point), leaf.numerator)]
    weights: dict[str, list[Claim]] = {}
    for i, d in enumerate(layout.weights):
        offset = QM31.from_int(d.offset)
        if d.split:
            (point, lo), (_, hi) = values[f"lo{i:02d}"], values[f"hi{i:02d}"]
            witness[f"lo{i:02d}"] = [Claim(point, lo)]
            witness[f"hi{i:02d}"] = [Claim(point, hi)]
            value = hi * (1 << LIMB_BITS) + lo - offset
        else:
            point, v = values[f"v{i:02d}"]
            value = v - offset
        weights[weight_name(i)] = [Claim(point, value)]
    return weights, stack_claims(STACKS, layout.witness(), witness)
