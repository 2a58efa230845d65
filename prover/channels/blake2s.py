"""Blake2sChannel: the transcript of the softmax STARK, byte-compatible with stwo-cairo's
`verifier_core/src/channel/blake2s.cairo` (see docs/channels.md)."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

import cairn_native

from cairn.prover.channels.base import Channel
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31

POW_PREFIX = 0x12345678


def _h(data: bytes) -> bytes:
    return hashlib.blake2s(data).digest()


def _le32(words: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


class Blake2sChannel(Channel[bytes]):
    """State: a 32-byte digest and the number of draws since the last mix."""

    def __init__(self, digest: bytes = bytes(32)) -> None:
        super().__init__(digest)

    def mix_root(self, root: bytes) -> None:
        self._update(_h(self.digest + root))

    def mix_u32s(self, words: Sequence[int]) -> None:
        self._update(_h(self.digest + _le32(words)))

    def mix_u64(self, value: int) -> None:
        self.mix_u32s([value & 0xFFFFFFFF, value >> 32])

    def mix_felts(self, xs: Sequence[QM31]) -> None:
        self._update(_h(self.digest + _le32([c for x in xs for c in x.coords])))

    def draw_u32s(self) -> list[int]:
        out = _h(self.digest + _le32([self.n_draws]) + b"\x00")
        self.n_draws += 1
        return list(struct.unpack("<8I", out))

    def draw_base_felts(self) -> list[int]:
        """Rejection sampling: accept a draw only if all 8 words are < 2p."""
        while True:
            words = self.draw_u32s()
            if all(w < 2 * P for w in words):
                return [w % P for w in words]

    def _pow_prefix(self, n_bits: int) -> bytes:
        return _h(_le32([POW_PREFIX]) + bytes(12) + self.digest + _le32([n_bits]))

    def _pow_hash(self, n_bits: int, nonce: int) -> bytes:
        return _h(self._pow_prefix(n_bits) + struct.pack("<Q", nonce))

    def verify_pow_nonce(self, n_bits: int, nonce: int) -> bool:
        """The first 8 bytes of the PoW hash, read little-endian, have >= n_bits trailing zeros."""
        low = struct.unpack("<Q", self._pow_hash(n_bits, nonce)[:8])[0]
        return low & ((1 << n_bits) - 1) == 0

    def grind(self, n_bits: int) -> int:
        """As Channel.grind, natively: 20 bits are a million hashes."""
        return cairn_native.blake2s_grind(self._pow_prefix(n_bits), n_bits)
