"""Declared weights: what a model walk's verifier may assume of a committed weight, and the range
proofs that show it once for the weights' commitments (docs/layers/range.md, "Declared weights").

A graph statement declares, per committed weight, its bits (and, when summed, its column sums
of |w|); its views then read the weight at that bound (prover/graph/views.py). The declaration
is a fixed property of the committed weights, so it is proven apart from any one forward pass:
by `range` layer walks over the same commitments (`certify`), which a verifier checks with the
graph (`check_certified`), and a registry once, when the model is registered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.range.relations import (
    MAX_WEIGHTS,
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


@dataclass(frozen=True, eq=False)
class WeightRange:
    """A committed weight's declared range: `bits` and, if `summed`, its column sums of |w|
    (`sums`): |w| ≤ 2^(bits−1) − 1 when summed, else −2^(bits−1) ≤ w < 2^(bits−1) (range.md).
    Summed exactly when the sums are given, so no calldata can say one without the other."""

    bits: int
    sums: np.ndarray | None = None

    @property
    def summed(self) -> bool:
        return self.sums is not None

    @staticmethod
    def of(w: np.ndarray, summed: bool) -> WeightRange:
        """The fewest bits holding w, with its column sums if summed (the prover's)."""
        d = Declared(range_check.bits_of(w, summed), summed, tuple(w.shape))
        return WeightRange(d.bits, d.sums(w) if summed else None)

    def declared(self, shape: Sequence[int]) -> Declared:
        return Declared(self.bits, self.summed, tuple(shape))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeightRange):
            return NotImplemented
        if self.bits != other.bits:
            return False
        if self.sums is None or other.sums is None:
            return self.sums is None and other.sums is None
        return self.sums.shape == other.sums.shape and np.array_equal(self.sums, other.sums)

    def problem(self, shape: Sequence[int]) -> str | None:
        """Why this cannot declare a weight of `shape` (the range kind's rules), or None."""
        try:
            d = self.declared(shape)
            RangeLayout.of(d.dims)
        except VerificationError as e:
            return str(e)
        if self.sums is not None:
            if self.sums.shape != d.sums_shape or d.sums_bound() > HALF:
                return f"column sums of shape {d.sums_shape}, each at most (p−1)/2"
            if self.sums.size and not 0 <= self.sums.min() <= self.sums.max() <= d.sums_bound():
                return f"a column sum outside [0, {d.sums_bound()}]"
        return None

    def worst(self, shape: tuple[int, ...]) -> np.ndarray:
        """The weight as a verifier reads it: every entry at its magnitude and, summed, the
        max column sum per matrix of the stack attached (`ColumnNormed`)."""
        d = self.declared(shape)
        fill = np.broadcast_to(np.int64(d.magnitude), shape)
        if self.sums is None:
            return fill
        maxima = self.sums.reshape(-1, self.sums.shape[-1]).max(axis=-1)
        return with_column_norms(fill, [int(v) for v in maxima])


def certificate_statements(
    declared: Mapping[str, WeightRange], committed: Mapping[str, CommittedTensor]
) -> list[tuple[Statement, dict[str, str]]]:
    """The `range` statements proving `declared`, MAX_WEIGHTS to a statement in name order,
    each weight bound by its graph commitment, with their local-to-graph weight names."""
    names = sorted(declared)
    out = []
    for start in range(0, len(names), MAX_WEIGHTS):
        chunk = names[start : start + MAX_WEIGHTS]
        dims: list[int] = []
        sums = {}
        for i, name in enumerate(chunk):
            r = declared[name]
            dims += r.declared(committed[name].shape).dims
            if r.sums is not None:
                sums[sums_name(i)] = r.sums
        local = {weight_name(i): name for i, name in enumerate(chunk)}
        st = Statement(
            range_check.KIND,
            tuple(dims),
            {},
            sums,
            {},
            {n: committed[name] for n, name in local.items()},
        )
        out.append((st, local))
    return out


def certify(
    declared: Mapping[str, WeightRange],
    committed: Mapping[str, CommittedTensor],
    weights: Mapping[str, np.ndarray],
    data: Mapping[str, CommitmentData],
) -> list[WalkProof]:
    """Range layer walks proving `declared` for the committed weights (values and commitment
    data the prover's)."""
    proofs = []
    for st, local in certificate_statements(declared, committed):
        values = {n: np.asarray(weights[name], dtype=np.int64) for n, name in local.items()}
        st = Statement(st.kind, st.dims, {}, st.outputs, values, st.committed)
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
            out.append((c, WeightRange(d.bits, sums)))
    return out


def check_certified(
    declared: Mapping[str, WeightRange],
    committed: Mapping[str, CommittedTensor],
    certificates: Sequence[WalkProof],
) -> None:
    """`graph.declared` unless every declared weight is declared alike, over the same commitment
    and shape, by one of `certificates`, each a `range` layer walk that verifies."""
    proven: dict[tuple, WeightRange] = {}
    for proof in certificates:
        st = proof.statement
        if st.kind != range_check.KIND:
            raise VerificationError("graph.declared", f"a certificate of kind {st.kind!r}")
        verify_walk(LAYERS[range_check.KIND], proof)
        for c, r in declared_by(st):
            proven[(c.commitment, tuple(c.shape))] = r
    for name in sorted(declared):
        c = committed.get(name)
        if c is None or proven.get((c.commitment, tuple(c.shape))) != declared[name]:
            raise VerificationError("graph.declared", f"{name}: no certificate declares it so")
