"""The range proof's lookups and witness layout, written once for the prover (on columns) and the
verifier (on the leaves' claimed values and the tables' closed forms).

Weight w_i of b_i bits is looked up whole when b_i ≤ LIMB_BITS: the key v = w_i + 2^(b_i−1) − 1
in the table [0, 2^b_i − 1) (symmetric: |w_i| ≤ 2^(b_i−1) − 1), paired with a = |w_i|, which the
prover commits, as v + β·a against the table's rows t + β·|t − 2^(b_i−1) + 1|. A wider weight's
key v = w_i + 2^(b_i−1) ∈ [0, 2^b_i) is split into the committed limbs lo = v mod 2^16 and
hi = ⌊v / 2^16⌋, looked up in the full tables [0, 2^16) and [0, 2^(b_i−16)). One LogUp relation
per table with its own challenge α_t. A whole weight of rank ≥ 2 has public column sums
s = Σ_l |w_i[…, l, j]| (an output), read as an evaluation of ã. Instances, in this order: the
columns (weights in index order; a split weight's lo, then hi), then the tables in layout order
(docs/layers/range.md, "Relations").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.lookups.prover import Fractions
from cairn.prover.lookups.verifier import LeafClaim
from cairn.prover.mle import next_pow2, pad_tensor, tensor_vars
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
    """One weight's declared range: |w| ≤ 2^(bits−1) − 1 when whole (bits ≤ LIMB_BITS), else
    −2^(bits−1) ≤ w < 2^(bits−1); `magnitude` is the bound a model walk reads it at."""

    bits: int
    shape: tuple[int, ...]

    @property
    def n_vars(self) -> int:
        return tensor_vars(self.shape)

    @property
    def whole(self) -> bool:
        return self.bits <= LIMB_BITS

    @property
    def magnitude(self) -> int:
        """The key's offset too: v = w + magnitude."""
        return (1 << (self.bits - 1)) - self.whole

    @property
    def sums_shape(self) -> tuple[int, ...] | None:
        """Column sums of |w| over the second-to-last axis: a whole weight of rank ≥ 2."""
        return (*self.shape[:-2], self.shape[-1]) if self.whole and len(self.shape) >= 2 else None

    @property
    def rows_vars(self) -> int:
        """κ: the summed axis' variables, which sit after the leading axes' in w's point."""
        return tensor_vars(self.shape[-2:-1])

    def sums(self, w: np.ndarray) -> np.ndarray:
        """Σ|w| over the second-to-last axis (the prover's, and the public output)."""
        return np.abs(np.asarray(w, dtype=np.int64)).sum(axis=-2)

    def sums_bound(self) -> int:
        """The most a padded column of |w| can sum to: below p, so the sums are integers."""
        return next_pow2(self.shape[-2]) * self.magnitude


def sums_name(i: int) -> str:
    return f"s{i:02d}"


def abs_name(i: int) -> str:
    return f"a{i:02d}"


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
class Table:
    """A lookup table: [0, 2^width − 1) paired with |t − 2^(width−1) + 1| (`whole`, its top row
    a copy of row 0), or the full [0, 2^width) (a limb)."""

    width: int
    whole: bool

    @property
    def name(self) -> str:
        return f"{'v' if self.whole else 'l'}{self.width:02d}"

    @property
    def offset(self) -> int:
        return (1 << (self.width - 1)) - 1

    def rows(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The keys and, for a whole table, the paired |key − offset| (the prover's)."""
        keys = np.arange(1 << self.width, dtype=np.int64)
        if not self.whole:
            return keys, None
        keys[-1] = 0
        return keys, np.abs(keys - self.offset)

    def rows_mle(self, point: Sequence[QM31], beta: QM31) -> QM31:
        """The table's row at ρ (MSB first): the index MLE less (2^c − 1)·Πρ for the copied top
        row; paired, plus β·(ρ_0·(l + 1) + (1 − ρ_0)·(2^(c−1) − 1 − l) − Πρ), l the index MLE of
        the low bits: |t − offset| is l + 1 above the middle and offset − l below."""
        index = index_mle(point)
        if not self.whole:
            return index
        top = QM31.one()
        for r in point:
            top = top * r
        low = index_mle(point[1:])
        h, one = point[0], QM31.one()
        magnitude = h * (low + one) + (one - h) * (QM31.from_int(self.offset) - low) - top
        return index - top * ((1 << self.width) - 1) + beta * magnitude


@dataclass(frozen=True)
class Column:
    """A looked-up column: weight `weight`'s key whole ("v", paired with |w|) or one of its
    limbs ("lo", "hi")."""

    weight: int
    part: str
    table: Table
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
            if d.whole:
                out.append(Column(i, "v", Table(d.bits, True), d.n_vars))
            else:
                out.append(Column(i, "lo", Table(LIMB_BITS, False), d.n_vars))
                out.append(Column(i, "hi", Table(d.bits - LIMB_BITS, False), d.n_vars))
        return out

    @property
    def tables(self) -> list[Table]:
        """Whole tables by width, then limb tables by width."""
        return sorted({c.table for c in self.columns}, key=lambda t: (not t.whole, t.width))

    @property
    def whole(self) -> list[int]:
        """The whole weights, whose |w| the proof sends at the leaves' point, in index order."""
        return [i for i, d in enumerate(self.weights) if d.whole]

    @property
    def sums(self) -> dict[str, tuple[int, ...]]:
        """The public outputs: each whole weight of rank ≥ 2's column sums, by name."""
        return {sums_name(i): d.sums_shape for i, d in enumerate(self.weights) if d.sums_shape}

    def instance_vars(self) -> list[int]:
        return [c.n_vars for c in self.columns] + [t.width for t in self.tables]

    def balanced(self) -> list[tuple[list[int], list[int]]]:
        """Per table: its columns' instances against its own (lookups.check_balance)."""
        cols = self.columns
        return [
            ([i for i, c in enumerate(cols) if c.table == t], [len(cols) + j])
            for j, t in enumerate(self.tables)
        ]

    def witness(self) -> StackLayout:
        """The committed columns: a multiplicity m<table> per table, |w| of the whole weights,
        the split weights' limbs."""
        column_vars = {f"m{t.name}": t.width for t in self.tables}
        column_vars |= {abs_name(i): self.weights[i].n_vars for i in self.whole}
        column_vars |= {c.name: c.n_vars for c in self.columns if c.part != "v"}
        return StackLayout.of(column_vars, STACK_VARS)

    def keys(self, weights: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
        """Every column's values on the padded hypercube, and |w| of the whole weights (the
        prover's)."""
        out = {}
        for i, d in enumerate(self.weights):
            w = pad_tensor(np.asarray(weights[i], dtype=np.int64)).ravel()
            v = w + d.magnitude
            if d.whole:
                out[f"v{i:02d}"], out[abs_name(i)] = v, np.abs(w)
            else:
                out[f"lo{i:02d}"], out[f"hi{i:02d}"] = v & 0xFFFF, v >> LIMB_BITS
        return out

    def multiplicities(self, keys: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """How often each table row is looked up; keys outside a table (or on a whole table's
        copied top row) are not counted (only a cheating prover has them, and its lookup then
        fails)."""
        out = {}
        for t in self.tables:
            rows = np.concatenate([keys[c.name] for c in self.columns if c.table == t])
            rows = rows[(rows >= 0) & (rows < (1 << t.width) - t.whole)]
            out[f"m{t.name}"] = np.bincount(rows, minlength=1 << t.width).astype(np.int64)
        return out


@dataclass(frozen=True)
class Challenges:
    alphas: dict[Table, QM31]
    beta: QM31


def draw_challenges(channel: Channel, layout: RangeLayout) -> Challenges:
    """α_t per table in layout order, then β (pairing a whole key with |w|), first on the fork."""
    *alphas, beta = channel.draw_secure_felts(len(layout.tables) + 1)
    return Challenges(dict(zip(layout.tables, alphas, strict=True)), beta)


def fractions(
    layout: RangeLayout, ch: Challenges, keys: dict[str, np.ndarray], counts: dict
) -> list[Fractions]:
    """The instances in layout order: 1/(α_t − v − β·|w|) per whole entry, 1/(α_t − limb) per
    limb entry, m(t)/(α_t − row) per table row."""

    def paired(v: np.ndarray, a: np.ndarray | None) -> QM31Array:
        out = QM31Array.from_signed(v)
        return out if a is None else out + QM31Array.from_signed(a) * ch.beta

    out = [
        Fractions(
            None,
            -paired(keys[c.name], keys[abs_name(c.weight)] if c.table.whole else None)
            + ch.alphas[c.table],
        )
        for c in layout.columns
    ]
    for t in layout.tables:
        rows = -paired(*t.rows()) + ch.alphas[t]
        out.append(Fractions(QM31Array.from_signed(counts[f"m{t.name}"]), rows))
    return out


def _half_point(d: Declared, point: Sequence[QM31]) -> tuple[QM31, ...]:
    """The column sums' point r = (r_lead, r_col) as ã's point (r_lead, ½, …, ½, r_col)."""
    half = QM31.from_int(pow(2, -1, P))
    lead = len(point) - tensor_vars(d.shape[-1:])
    return (*point[:lead], *[half] * d.rows_vars, *point[lead:])


def sums_claims(layout: RangeLayout, outputs: Mapping[str, Claim]) -> dict[str, list[Claim]]:
    """s̃(r) = Σ_l ã(r_lead, l, r_col) = 2^κ·ã(r_lead, ½^κ, r_col) for multilinear ã: each
    column-sums claim as one claim on |w|."""
    out: dict[str, list[Claim]] = {}
    for i, d in enumerate(layout.weights):
        if (claim := outputs.get(sums_name(i))) is not None:
            scale = QM31.from_int(pow(2, -d.rows_vars, P))
            out[abs_name(i)] = [Claim(_half_point(d, claim.point), claim.value * scale)]
    return out


def leaf_claims(
    layout: RangeLayout,
    ch: Challenges,
    leaves: Sequence[LeafClaim],
    magnitudes: Sequence[QM31],
    outputs: Mapping[str, Claim],
) -> tuple[dict[str, list[Claim]], dict[str, list[Claim]]]:
    """`logup.numerator` unless every column leaf's numerator is 1, `range.table` unless every
    table leaf's denominator is α_t minus its rows' MLE; then the claims the leaves make, on the
    weights and on the witness stacks: a column's value is α_t − its denominator; a whole key
    less β·ã (ã(ρ) one of the proof's `magnitudes`, in whole-weight order) is w̃ + 2^(b−1) − 1,
    limbs give w̃ = 2^16·hĩ + lõ − 2^(b−1) at their common point; a table's numerator is its
    multiplicity m̃_t(ρ_t); and the column sums' claims fall on ã (`sums_claims`)."""
    cols = layout.columns
    values: dict[str, tuple[tuple[QM31, ...], QM31]] = {}
    for c, leaf in zip(cols, leaves, strict=False):
        if leaf.numerator != QM31.one():
            raise VerificationError("logup.numerator", f"column {c.name}: a numerator is not 1")
        values[c.name] = (tuple(leaf.point), ch.alphas[c.table] - leaf.denominator)
    witness: dict[str, list[Claim]] = {}
    for t, leaf in zip(layout.tables, leaves[len(cols) :], strict=True):
        if leaf.denominator != ch.alphas[t] - t.rows_mle(leaf.point, ch.beta):
            raise VerificationError("range.table", f"table {t.name} is not its rows")
        witness[f"m{t.name}"] = [Claim(tuple(leaf.point), leaf.numerator)]
    magnitude = dict(zip(layout.whole, magnitudes, strict=True))
    weights: dict[str, list[Claim]] = {}
    for i, d in enumerate(layout.weights):
        offset = QM31.from_int(d.magnitude)
        if d.whole:
            point, v = values[f"v{i:02d}"]
            witness[abs_name(i)] = [Claim(point, magnitude[i])]
            value = v - ch.beta * magnitude[i] - offset
        else:
            (point, lo), (_, hi) = values[f"lo{i:02d}"], values[f"hi{i:02d}"]
            witness[f"lo{i:02d}"] = [Claim(point, lo)]
            witness[f"hi{i:02d}"] = [Claim(point, hi)]
            value = hi * (1 << LIMB_BITS) + lo - offset
        weights[weight_name(i)] = [Claim(point, value)]
    for name, claims in sums_claims(layout, outputs).items():
        witness[name] += claims
    return weights, stack_claims(STACKS, layout.witness(), witness)
