"""The range proof's lookups and witness layout, written once for the prover (on columns) and the
verifier (on the leaves' claimed values and the tables' closed forms).

A weight declared `summed` (b ≤ LIMB_BITS) has |w| ≤ 2^(b−1) − 1: its key v = w + 2^(b−1) − 1 is
paired with a = |w|, which the prover commits, and v + β·a is looked up in the table of rows
t + β·|t − 2^(b−1) + 1|, t ∈ [0, 2^b − 1); its public column sums s = Σ_l |w[…, l, j]| (an output;
a vector is one column) are read as one evaluation of ã. Any other weight has
−2^(b−1) ≤ w < 2^(b−1): its key v = w + 2^(b−1) is looked up whole in the full table [0, 2^b) for
b ≤ LIMB_BITS, else as the committed limbs lo = v mod 2^16 and hi = ⌊v / 2^16⌋ in [0, 2^16) and
[0, 2^(b−16)). One LogUp relation per table with its own challenge α_t. Instances, in this order:
the columns (weights in index order; a split weight's lo, then hi), then the tables in layout
order (docs/layers/range.md, "Relations").
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
MAX_VARS = 23
"""At most 2^23 entries a weight: 64 columns of 2^23 keep every relation below p lookups (the
logarithmic-derivative lemma's condition), public weights included."""


def weight_name(i: int) -> str:
    """w00, w01, …: name order is index order."""
    return f"w{i:02d}"


@dataclass(frozen=True)
class Declared:
    """One weight's declared range: |w| ≤ 2^(bits−1) − 1 if `summed` (its column sums of |w|
    declared too), else −2^(bits−1) ≤ w < 2^(bits−1); `magnitude` is the bound a model walk
    reads it at, and the key's offset (v = w + magnitude)."""

    bits: int
    summed: bool
    shape: tuple[int, ...]

    @property
    def n_vars(self) -> int:
        return tensor_vars(self.shape)

    @property
    def dims(self) -> tuple[int, ...]:
        """Its part of a statement's dims: (bits, summed, rank, *shape)."""
        return (self.bits, int(self.summed), len(self.shape), *self.shape)

    @property
    def split(self) -> bool:
        return self.bits > LIMB_BITS

    @property
    def magnitude(self) -> int:
        return (1 << (self.bits - 1)) - self.summed

    @property
    def matrix(self) -> bool:
        return len(self.shape) >= 2

    @property
    def sums_shape(self) -> tuple[int, ...] | None:
        """Sums of |w| over the second-to-last axis (its columns'), or over its one axis for a
        vector (one column): what bounds its products' Euclidean norms."""
        if not self.summed:
            return None
        return (*self.shape[:-2], self.shape[-1]) if self.matrix else (1,)

    @property
    def rows_vars(self) -> int:
        """κ: the summed axis' variables, which sit after the leading axes' in w's point."""
        return tensor_vars(self.shape[-2:-1] if self.matrix else self.shape)

    @property
    def columns_vars(self) -> int:
        """The variables after the summed axis' (none for a vector)."""
        return tensor_vars(self.shape[-1:]) if self.matrix else 0

    def sums(self, w: np.ndarray) -> np.ndarray:
        """Σ|w| over the summed axis (the prover's, and the public output)."""
        w = np.abs(np.asarray(w, dtype=np.int64))
        return w.sum(axis=-2) if self.matrix else w.sum(keepdims=True)

    def sums_bound(self) -> int:
        """The most a padded column of |w| can sum to: below p, so the sums are integers."""
        return (1 << self.rows_vars) * self.magnitude


def sums_name(i: int) -> str:
    return f"s{i:02d}"


def abs_name(i: int) -> str:
    return f"a{i:02d}"


def parse_dims(dims: Sequence[int]) -> list[Declared]:
    """dims = (b_0, summed_0, rank_0, *shape_0, b_1, …); `statement.shape` unless they parse into
    1 … MAX_WEIGHTS weights, summed 0 or 1, of rank 1 … MAX_RANK and dims ≥ 1, `range.params`
    unless every 1 ≤ b ≤ MAX_BITS, every summed weight has b ≤ LIMB_BITS and every weight at
    most 2^MAX_VARS entries (padded)."""
    out, i = [], 0
    while i < len(dims):
        if i + 3 > len(dims) or dims[i + 1] not in (0, 1) or not 1 <= dims[i + 2] <= MAX_RANK:
            raise VerificationError("statement.shape", f"range dims {tuple(dims)} do not parse")
        bits, summed, rank = dims[i : i + 3]
        shape = tuple(dims[i + 3 : i + 3 + rank])
        if len(shape) != rank or min(shape) < 1:
            raise VerificationError("statement.shape", f"range dims {tuple(dims)} do not parse")
        top = LIMB_BITS if summed else MAX_BITS
        if not 1 <= bits <= top:
            raise VerificationError("range.params", f"{bits} bits: not in [1, {top}]")
        declared = Declared(bits, bool(summed), shape)
        if declared.n_vars > MAX_VARS:
            raise VerificationError("range.params", f"{shape}: more than 2^{MAX_VARS} entries")
        out.append(declared)
        i += 3 + rank
    if not 1 <= len(out) <= MAX_WEIGHTS:
        raise VerificationError("statement.shape", f"range takes 1 to {MAX_WEIGHTS} weights")
    return out


@dataclass(frozen=True)
class Table:
    """A lookup table: [0, 2^width − 1) with each row paired with |t − 2^(width−1) + 1|
    (`paired`, its top row a copy of row 0), or the full [0, 2^width)."""

    width: int
    paired: bool

    @property
    def name(self) -> str:
        return f"{'p' if self.paired else 't'}{self.width:02d}"

    @property
    def offset(self) -> int:
        return (1 << (self.width - 1)) - 1

    def rows(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The keys and, paired, |key − offset| (the prover's)."""
        keys = np.arange(1 << self.width, dtype=np.int64)
        if not self.paired:
            return keys, None
        keys[-1] = 0
        return keys, np.abs(keys - self.offset)

    def rows_mle(self, point: Sequence[QM31], beta: QM31) -> QM31:
        """The table's row at ρ (MSB first): the index MLE; paired, less (2^c − 1)·Πρ for the
        copied top row, plus β·(ρ_0·(l + 1) + (1 − ρ_0)·(2^(c−1) − 1 − l) − Πρ), l the index MLE
        of the low bits: |t − offset| is l + 1 above the middle and offset − l below."""
        index = index_mle(point)
        if not self.paired:
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
    """A looked-up column: weight `weight`'s key whole ("v"; paired with |w| if summed) or one
    of its limbs ("lo", "hi")."""

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
            if d.split:
                out.append(Column(i, "lo", Table(LIMB_BITS, False), d.n_vars))
                out.append(Column(i, "hi", Table(d.bits - LIMB_BITS, False), d.n_vars))
            else:
                out.append(Column(i, "v", Table(d.bits, d.summed), d.n_vars))
        return out

    @property
    def tables(self) -> list[Table]:
        """Paired tables by width, then full ones by width."""
        return sorted({c.table for c in self.columns}, key=lambda t: (not t.paired, t.width))

    @property
    def summed(self) -> list[int]:
        """The summed weights, whose |w| the proof sends at the leaves' point, in index order."""
        return [i for i, d in enumerate(self.weights) if d.summed]

    @property
    def sums(self) -> dict[str, tuple[int, ...]]:
        """The public outputs: each summed weight's column sums, by name."""
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
        """The committed columns: a multiplicity m<table> per table, |w| of the summed weights,
        the split weights' limbs."""
        column_vars = {f"m{t.name}": t.width for t in self.tables}
        column_vars |= {abs_name(i): self.weights[i].n_vars for i in self.summed}
        column_vars |= {c.name: c.n_vars for c in self.columns if c.part != "v"}
        return StackLayout.of(column_vars, STACK_VARS)

    def keys(self, weights: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
        """Every column's values on the padded hypercube, and |w| of the summed weights (the
        prover's)."""
        out = {}
        for i, d in enumerate(self.weights):
            w = pad_tensor(np.asarray(weights[i], dtype=np.int64)).ravel()
            v = w + d.magnitude
            if d.split:
                out[f"lo{i:02d}"], out[f"hi{i:02d}"] = v & 0xFFFF, v >> LIMB_BITS
            else:
                out[f"v{i:02d}"] = v
            if d.summed:
                out[abs_name(i)] = np.abs(w)
        return out

    def multiplicities(self, keys: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """How often each table row is looked up; keys outside a table (or on a paired table's
        copied top row) are not counted (only a cheating prover has them, and its lookup then
        fails)."""
        out = {}
        for t in self.tables:
            rows = np.concatenate([keys[c.name] for c in self.columns if c.table == t])
            rows = rows[(rows >= 0) & (rows < (1 << t.width) - t.paired)]
            out[f"m{t.name}"] = np.bincount(rows, minlength=1 << t.width).astype(np.int64)
        return out


@dataclass(frozen=True)
class Challenges:
    alphas: dict[Table, QM31]
    beta: QM31


def draw_challenges(channel: Channel, layout: RangeLayout) -> Challenges:
    """α_t per table in layout order, then β (pairing a summed key with |w|), first on the fork."""
    *alphas, beta = channel.draw_secure_felts(len(layout.tables) + 1)
    return Challenges(dict(zip(layout.tables, alphas, strict=True)), beta)


def fractions(
    layout: RangeLayout, ch: Challenges, keys: dict[str, np.ndarray], counts: dict
) -> list[Fractions]:
    """The instances in layout order: 1/(α_t − v − β·|w|) per summed entry, 1/(α_t − key) per
    other key or limb, m(t)/(α_t − row) per table row."""

    def paired(v: np.ndarray, a: np.ndarray | None) -> QM31Array:
        out = QM31Array.from_signed(v)
        return out if a is None else out + QM31Array.from_signed(a) * ch.beta

    out = [
        Fractions(
            None,
            -paired(keys[c.name], keys[abs_name(c.weight)] if c.table.paired else None)
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
    lead = len(point) - d.columns_vars
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
    weights and on the witness stacks: a column's value is α_t − its denominator; a summed key
    less β·ã (ã(ρ) one of the proof's `magnitudes`, in index order) is w̃ + 2^(b−1) − 1, another
    whole key w̃ + 2^(b−1), limbs give w̃ = 2^16·hĩ + lõ − 2^(b−1) at their common point; a
    table's numerator is its multiplicity m̃_t(ρ_t); and the column sums' claims fall on ã
    (`sums_claims`)."""
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
    magnitude = dict(zip(layout.summed, magnitudes, strict=True))
    weights: dict[str, list[Claim]] = {}
    for i, d in enumerate(layout.weights):
        offset = QM31.from_int(d.magnitude)
        if d.split:
            (point, lo), (hi_point, hi) = values[f"lo{i:02d}"], values[f"hi{i:02d}"]
            assert hi_point == point  # instances of one size share the point's suffix
            witness[f"lo{i:02d}"] = [Claim(point, lo)]
            witness[f"hi{i:02d}"] = [Claim(point, hi)]
            value = hi * (1 << LIMB_BITS) + lo - offset
        else:
            point, value = values[f"v{i:02d}"]
            value = value - offset
        if d.summed:
            witness[abs_name(i)] = [Claim(point, magnitude[i])]
            value = value - ch.beta * magnitude[i]
        weights[weight_name(i)] = [Claim(point, value)]
    for name, claims in sums_claims(layout, outputs).items():
        witness[name] += claims
    return weights, stack_claims(STACKS, layout.witness(), witness)
