"""Declared weights: what a model walk's verifier may assume of a committed weight, and the range
proofs that show it once for the weights' commitments (docs/layers/range.md, "Declared weights").

A graph statement declares, per committed weight, its bits (and, when summed, the largest of its
column sums of |w|); its views then read the weight at that bound (prover/graph/views.py). The
declaration is a fixed property of the committed weights, so it is proven apart from any one
forward pass: by `range` layer walks over the same commitments (`certify`), which a verifier
checks with the graph (`check_certified`), and a registry once, when the model is registered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.range.relations import (
    Declared,
    RangeLayout,
    parse_dims,
    sums_name,
    weight_name,
)
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.ranges import with_column_norms
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.verifier import verify_walk


@dataclass(frozen=True)
class WeightRange:
    """A committed weight's declared range: `bits` and, if `summed`, the largest of its column
    sums of |w| (`col_max`): |w| ≤ 2^(bits−1) − 1 when summed, else −2^(bits−1) ≤ w < 2^(bits−1)
    (range.md). What the views read of the sums is their largest, so a statement carries one
    integer per weight, not the sums; a range walk proving the sums certifies their largest.
    Summed exactly when `col_max` is given, so no calldata can say one without the other."""

    bits: int
    col_max: int | None = None

    @property
    def summed(self) -> bool:
        return self.col_max is not None

    @staticmethod
    def of(w: np.ndarray, summed: bool) -> WeightRange:
        """The fewest bits holding w, with its largest column sum if summed (the prover's)."""
        d = Declared(range_check.bits_of(w, summed), summed, tuple(w.shape))
        return WeightRange.proven(d, d.sums(w) if summed else None)

    @staticmethod
    def proven(d: Declared, sums: np.ndarray | None) -> WeightRange:
        """What a range walk proving `d` with column sums `sums` certifies."""
        return WeightRange(d.bits, None if sums is None else int(np.max(sums, initial=0)))

    def declared(self, shape: Sequence[int]) -> Declared:
        return Declared(self.bits, self.summed, tuple(shape))

    def problem(self, shape: Sequence[int]) -> str | None:
        """Why this cannot declare a weight of `shape` (the range kind's rules), or None."""
        try:
            d = self.declared(shape)
            RangeLayout.of(d.dims)
        except VerificationError as e:
            return str(e)
        if self.col_max is not None and not 0 <= self.col_max <= d.sums_bound() <= HALF:
            return f"a largest column sum in [0, {d.sums_bound()}], at most (p−1)/2"
        return None

    def worst(self, shape: tuple[int, ...]) -> np.ndarray:
        """The weight as a verifier reads it: every entry at its magnitude and, summed, the
        largest column sum for every matrix of the stack attached (`ColumnNormed`)."""
        d = self.declared(shape)
        fill = np.broadcast_to(np.int64(d.magnitude), shape)
        if self.col_max is None:
            return fill
        matrices = int(np.prod(d.sums_shape[:-1], dtype=np.int64)) if d.sums_shape else 1
        return with_column_norms(fill, [self.col_max] * matrices)


CERTIFICATE_WEIGHTS = 16
"""At most this many weights a certificate: its first transaction carries its whole layer proof,
≈ 140 felts a weight (16 of MiniLM's: fronts of 3,418–3,612 felts, 32: over the 5,000 a
transaction carries)."""
CERTIFICATE_GAS = 650_000_000
"""The L2 gas planned for a certificate's first transaction on chain, which carries its statement
(the column sums are public outputs) and checks its whole layer proof: under the 8·10^8 a
transaction is planned for, with room for the model's ≈ 5% error (`certificate_gas`)."""


def certificate_gas(weights: Sequence[Declared]) -> int:
    """A range walk's first transaction's L2 gas, as measured on a devnet (docs/layers/range.md,
    "Declared weights"): 1.4·10^8, 1.5·10^7 per column (a split weight has two) and 1.5·10^5 per
    column sum — the sums dominate: a 384 × 1536 weight costs three 384 × 384 ones."""
    columns = sum(2 if d.split else 1 for d in weights)
    sums = sum(int(np.prod(d.sums_shape)) for d in weights if d.sums_shape)
    return 140_000_000 + 15_000_000 * columns + 150_000 * sums


def certificate_chunks(
    declared: Mapping[str, WeightRange], shapes: Mapping[str, Sequence[int]]
) -> list[list[str]]:
    """The declared weights packed into certificates, first fit by decreasing cost: each walk's
    first transaction within CERTIFICATE_GAS (`certificate_gas`) and CERTIFICATE_WEIGHTS;
    names in order within a walk. Any packing certifies the same keys (one per weight), this
    one with few walks (MiniLM: 12, 13 in name order)."""
    of = {name: declared[name].declared(shapes[name]) for name in declared}
    chunks: list[list[str]] = []
    for name in sorted(of, key=lambda n: (-certificate_gas([of[n]]), n)):
        for chunk in chunks:
            held = [of[n] for n in chunk]
            if (
                len(chunk) < CERTIFICATE_WEIGHTS
                and certificate_gas([*held, of[name]]) <= CERTIFICATE_GAS
            ):
                chunk.append(name)
                break
        else:
            chunks.append([name])
    return [sorted(chunk) for chunk in chunks]


def certify(
    declared: Mapping[str, WeightRange],
    committed: Mapping[str, CommittedTensor],
    weights: Mapping[str, np.ndarray],
    data: Mapping[str, CommitmentData],
) -> list[WalkProof]:
    """Range layer walks proving `declared` for the committed weights (`certificate_chunks`),
    each weight bound by its graph commitment (values and commitment data the prover's)."""
    shapes = {name: committed[name].shape for name in declared}
    proofs = []
    for chunk in certificate_chunks(declared, shapes):
        local = {weight_name(i): name for i, name in enumerate(chunk)}
        values = {n: np.asarray(weights[name], dtype=np.int64) for n, name in local.items()}
        dims: list[int] = []
        sums = {}
        for i, (n, name) in enumerate(local.items()):
            d = declared[name].declared(committed[name].shape)
            dims += d.dims
            if d.summed:
                sums[sums_name(i)] = d.sums(values[n])
        st = Statement(
            range_check.KIND,
            tuple(dims),
            {},
            sums,
            values,
            {n: committed[name] for n, name in local.items()},
        )
        proofs.append(
            prove_walk(LAYERS[range_check.KIND], st, {n: data[name] for n, name in local.items()})
        )
    return proofs


def declared_by(st: Statement) -> list[tuple[CommittedTensor, WeightRange]]:
    """What a range walk's statement declares of its committed weights, in name order (a public
    weight: nothing; another kind: nothing)."""
    if st.kind != range_check.KIND:
        return []
    out = []
    for i, d in enumerate(parse_dims(st.dims)):
        if (c := st.committed.get(weight_name(i))) is not None:
            sums = st.outputs[sums_name(i)] if d.summed else None
            out.append((c, WeightRange.proven(d, sums)))
    return out


def check_certified(
    declared: Mapping[str, WeightRange],
    committed: Mapping[str, CommittedTensor],
    certificates: Sequence[WalkProof],
) -> None:
    """`graph.declared` unless every declared weight is declared alike (bits, largest column
    sum), over the same commitment and shape, by one of `certificates`, each a `range` layer
    walk that verifies."""
    proven: set[tuple] = set()
    for proof in certificates:
        st = proof.statement
        if st.kind != range_check.KIND:
            raise VerificationError("graph.declared", f"a certificate of kind {st.kind!r}")
        verify_walk(LAYERS[range_check.KIND], proof)
        proven |= {(c.commitment, tuple(c.shape), r) for c, r in declared_by(st)}
    for name in sorted(declared):
        c = committed.get(name)
        if c is None or (c.commitment, tuple(c.shape), declared[name]) not in proven:
            raise VerificationError("graph.declared", f"{name}: no certificate declares it so")
