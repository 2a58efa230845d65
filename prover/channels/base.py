"""What both Fiat-Shamir channels share: QM31 draws built from base draws, and grinding."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

from cairn.prover.fields.qm31 import QM31

Digest = TypeVar("Digest", int, bytes)


class Channel(ABC, Generic[Digest]):
    """State: a digest and the number of draws since the last mix (every mix resets it)."""

    def __init__(self, digest: Digest) -> None:
        self.digest = digest
        self.n_draws = 0

    def _update(self, digest: Digest) -> None:
        self.digest = digest
        self.n_draws = 0

    @abstractmethod
    def mix_felts(self, xs: Sequence[QM31]) -> None:
        """Absorb secure-field elements (sum-check rounds, claimed values)."""

    @abstractmethod
    def draw_base_felts(self) -> list[int]:
        """8 uniform M31 values from one draw."""

    @abstractmethod
    def verify_pow_nonce(self, n_bits: int, nonce: int) -> bool:
        """Whether `nonce` solves the proof-of-work puzzle at the current digest."""

    def draw_secure_felt(self) -> QM31:
        return QM31(*self.draw_base_felts()[:4])

    def draw_secure_felts(self, n: int) -> list[QM31]:
        """Two QM31 per draw: limbs 0-3, then 4-7."""
        out: list[QM31] = []
        while len(out) < n:
            limbs = self.draw_base_felts()
            out.append(QM31(*limbs[:4]))
            if len(out) < n:
                out.append(QM31(*limbs[4:]))
        return out

    def grind(self, n_bits: int) -> int:
        """Smallest nonce passing verify_pow_nonce; the caller then mixes it with mix_u64."""
        nonce = 0
        while not self.verify_pow_nonce(n_bits, nonce):
            nonce += 1
        return nonce
