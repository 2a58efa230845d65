"""Reading felt252 calldata front to back: every failure names the offset of the bad felt and
the check the Cairo reader reverts with for the same input (docs/calldata.md)."""

from __future__ import annotations

import numpy as np

from cairn.prover.channels.poseidon import M31_PER_FELT, STARK_PRIME, PackingError, unpack_m31s
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31
from cairn.serializer.errors import MalformedProofError


def unpack_qm31(felt: int) -> QM31:
    """Inverse of QM31.pack(1): checks the 2^124 sentinel and that each limb is < p."""
    if felt >> 124 != 1:
        raise MalformedProofError("qm31", "sentinel is not 1", "calldata.sentinel")
    limbs = [(felt >> (31 * (3 - i))) & P for i in range(4)]
    if P in limbs:
        raise MalformedProofError("qm31", "limb equal to p", "calldata.limb")
    return QM31(*limbs)


def words_for(count: int) -> int:
    """Packed felts holding `count` M31 values."""
    return -(-count // M31_PER_FELT)


class Reader:
    """A cursor over calldata whose felts are all in [0, STARK_PRIME)."""

    def __init__(self, felts: list[int]) -> None:
        for i, f in enumerate(felts):
            if not 0 <= f < STARK_PRIME:
                raise MalformedProofError(f"calldata[{i}]", "not a felt252")
        self.felts = felts
        self.pos = 0

    def fail(self, problem: str, check: str, at: int | None = None) -> MalformedProofError:
        return MalformedProofError(
            f"calldata[{self.pos - 1 if at is None else at}]", problem, check
        )

    def take(self, what: str) -> int:
        if self.pos >= len(self.felts):
            raise self.fail(f"ended before {what}", "calldata.truncated", self.pos)
        v = self.felts[self.pos]
        self.pos += 1
        return v

    def bounded(self, what: str, lo: int, hi: int, check: str) -> int:
        v = self.take(what)
        if not lo <= v <= hi:
            raise self.fail(f"{what} = {v} not in [{lo}, {hi}]", check)
        return v

    def exact(self, what: str, value: int, check: str) -> int:
        return self.bounded(what, value, value, check)

    def many(self, what: str, count: int) -> list[int]:
        """`count` felts, all taken before any is checked (`calldata.truncated` if fewer)."""
        if count > len(self.felts) - self.pos:
            raise self.fail(f"ended inside {what}", "calldata.truncated", len(self.felts))
        self.pos += count
        return self.felts[self.pos - count : self.pos]

    def m31_rows(self, what: str, rows: int, width: int) -> list[np.ndarray]:
        """`rows` rows of `width` canonical M31 values, each packed 8 per felt on its own words:
        all words are taken, then checked in order (marker before limbs, as in Cairo)."""
        start, per_row = self.pos, words_for(width)
        words = self.many(what, rows * per_row)
        out = []
        for r in range(rows):
            try:
                out.append(unpack_m31s(words[r * per_row : (r + 1) * per_row], width))
            except PackingError as e:
                at = start + r * per_row + e.index
                raise self.fail(f"{what}: {e}", f"calldata.{e.kind}", at) from None
        return out

    def m31s(self, what: str, count: int) -> np.ndarray:
        """`count` canonical M31 values packed 8 per felt."""
        return self.m31_rows(what, 1, count)[0]

    def qm31(self, what: str) -> QM31:
        felt = self.take(what)
        try:
            return unpack_qm31(felt)
        except MalformedProofError as e:
            raise self.fail(e.problem, e.check) from None

    def qm31s(self, what: str, count: int) -> list[QM31]:
        return [self.qm31(f"{what} {i}") for i in range(count)]

    def end(self) -> None:
        if self.pos != len(self.felts):
            raise self.fail(f"{len(self.felts) - self.pos} extra felts", "calldata.extra", self.pos)
