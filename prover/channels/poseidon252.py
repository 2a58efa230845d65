"""Poseidon252Channel: the Fiat-Shamir transcript of every sum-check, byte-compatible with
stwo-cairo's `verifier_core/src/channel/poseidon252.cairo` (see docs/channels.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.poseidon import (
    LENGTH_SHIFT,
    hades,
    hash_many,
    hash_with_m31s,
    poseidon_hash,
    pow_grind,
)
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31

POW_PREFIX = 0x12345678
U32S_PER_FELT = 7


class Poseidon252Channel(Channel[int]):
    """State: a felt252 digest and the number of draws since the last mix."""

    def __init__(self, digest: int = 0) -> None:
        super().__init__(digest)

    # -- mixing ----------------------------------------------------------------------------
    def mix_root(self, root: int) -> None:
        """Absorb one felt252 (a commitment, a domain tag)."""
        self._update(poseidon_hash(self.digest, root))

    def mix_u64(self, value: int) -> None:
        if not 0 <= value < 1 << 64:
            raise ValueError(f"mix_u64: {value} is not a u64")
        self._update(poseidon_hash(self.digest, value))

    def mix_u32s(self, words: Sequence[int]) -> None:
        """7 u32 per felt, big-endian; a partial last chunk is zero-padded and length-tagged."""
        felts = [self.digest]
        for i in range(0, len(words), U32S_PER_FELT):
            chunk = list(words[i : i + U32S_PER_FELT])
            acc = 0
            for w in chunk + [0] * (U32S_PER_FELT - len(chunk)):
                acc = (acc << 32) | w
            felts.append(acc + (len(chunk) % U32S_PER_FELT) * LENGTH_SHIFT)
        self._update(hash_many(felts))

    def mix_felts(self, xs: Sequence[QM31]) -> None:
        """The list packed by `pack_qm31s`, hashed after the digest."""
        self._update(hash_many([self.digest, *pack_qm31s(xs)]))

    def mix_m31s(self, values: np.ndarray) -> None:
        """Cairn's extension: absorb M31 values packed 8 per felt (Merkle-leaf packing)."""
        self._update(hash_with_m31s(self.digest, values))

    # -- drawing ---------------------------------------------------------------------------
    def draw_felt252(self) -> int:
        s = hades(self.digest, self.n_draws, 3)[0]
        self.n_draws += 1
        return s

    def draw_base_felts(self) -> list[int]:
        """8 limbs of 31 bits, least significant first, each reduced mod p."""
        s = self.draw_felt252()
        return [((s >> (31 * i)) & ((1 << 31) - 1)) % P for i in range(8)]

    def draw_u32s(self) -> list[int]:
        """The 7 low little-endian u32 words of one draw (the top word is not uniform)."""
        s = self.draw_felt252()
        return [(s >> (32 * i)) & 0xFFFFFFFF for i in range(7)]

    # -- proof of work ---------------------------------------------------------------------
    def _pow_prefix(self, n_bits: int) -> int:
        return hash_many([POW_PREFIX, self.digest, n_bits])

    def _pow_hash(self, n_bits: int, nonce: int) -> int:
        return poseidon_hash(self._pow_prefix(n_bits), nonce)

    def verify_pow_nonce(self, n_bits: int, nonce: int) -> bool:
        """Low 128 bits of H(H(prefix, digest, n_bits), nonce) have >= n_bits trailing zeros."""
        if not 0 <= n_bits < 64:
            raise ValueError("n_bits must be in [0, 64)")
        return self._pow_hash(n_bits, nonce) & ((1 << n_bits) - 1) == 0

    def grind(self, n_bits: int) -> int:
        """As Channel.grind, natively (one permutation per nonce); ValueError outside
        [0, 64), from the prefix's hash (n_bits < 0) or the grinder (n_bits ≥ 64)."""
        return pow_grind(self._pow_prefix(n_bits), n_bits)


def pack_qm31s(xs: Sequence[QM31]) -> list[int]:
    """Pairs pack as 1‖x‖y (2^248 marker), an odd last one as 1‖x (2^124 marker)."""
    felts = [xs[i + 1].pack(xs[i].pack(1)) for i in range(0, len(xs) - 1, 2)]
    if len(xs) % 2:
        felts.append(xs[-1].pack(1))
    return felts
