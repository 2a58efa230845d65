"""The two Merkle hashes, and how a root of either enters either Fiat-Shamir channel.

Digests travel as ints: a Poseidon digest is its felt252, a Blake2s digest is its 32 bytes
read big-endian. Internally a tree level is a (k, 32) uint8 array of big-endian digests, so
one native call hashes a whole level.
"""

from __future__ import annotations

import struct
from abc import ABC, abstractmethod

import cairn_native
import numpy as np

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.channels.poseidon252 import Poseidon252Channel

DIGEST_BYTES = 32


class MerkleHash(ABC):
    """Leaf hash of M31 rows and node hash of two children, batched over a whole level."""

    name: str

    @abstractmethod
    def hash_leaves(self, values: np.ndarray) -> np.ndarray:
        """(n, width) canonical M31 values -> (n, 32) uint8 leaf digests."""

    @abstractmethod
    def hash_nodes(self, children: np.ndarray) -> np.ndarray:
        """(2k, 32) digests, siblings adjacent -> (k, 32) parent digests."""

    @abstractmethod
    def is_digest(self, value: int) -> bool:
        """Whether an int from a proof is a digest this hash can output."""

    @staticmethod
    def to_int(digest: np.ndarray | bytes) -> int:
        return int.from_bytes(bytes(digest), "big")

    @staticmethod
    def to_bytes(value: int) -> bytes:
        return value.to_bytes(DIGEST_BYTES, "big")

    def digests_from_ints(self, values: list[int]) -> np.ndarray:
        """Ints (already checked with is_digest) -> (k, 32) uint8."""
        blob = b"".join(self.to_bytes(v) for v in values)
        return np.frombuffer(blob, dtype=np.uint8).reshape(len(values), DIGEST_BYTES)


def _words(values: np.ndarray) -> bytes:
    return np.ascontiguousarray(values, dtype="<u4").tobytes()


def _digests(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.uint8).reshape(-1, DIGEST_BYTES)


class Poseidon252Hash(MerkleHash):
    """Leaf = poseidon_hash_many(row packed 8 M31 per felt); node = poseidon_hash(l, r).

    These are STWO's Poseidon Merkle nodes "values, no children" and "children, no values".
    """

    name = "poseidon"

    def hash_leaves(self, values: np.ndarray) -> np.ndarray:
        return _digests(cairn_native.hash_m31_rows(_words(values), values.shape[1]))

    def hash_nodes(self, children: np.ndarray) -> np.ndarray:
        return _digests(cairn_native.hash_pairs(children.tobytes()))

    def is_digest(self, value: int) -> bool:
        return 0 <= value < STARK_PRIME


class Blake2sHash(MerkleHash):
    """Leaf = Blake2s(LE32 of the row); node = Blake2s(left || right)."""

    name = "blake2s"

    def hash_leaves(self, values: np.ndarray) -> np.ndarray:
        return _digests(cairn_native.blake2s_rows(_words(values), 4 * values.shape[1]))

    def hash_nodes(self, children: np.ndarray) -> np.ndarray:
        return _digests(cairn_native.blake2s_rows(children.tobytes(), 2 * DIGEST_BYTES))

    def is_digest(self, value: int) -> bool:
        return 0 <= value < 1 << (8 * DIGEST_BYTES)


HASHES: dict[str, MerkleHash] = {h.name: h for h in (Poseidon252Hash(), Blake2sHash())}


def get_hash(name: str) -> MerkleHash:
    try:
        return HASHES[name]
    except KeyError:
        raise ValueError(
            f"unknown Merkle hash {name!r}; expected one of {sorted(HASHES)}"
        ) from None


def mix_root(channel: Poseidon252Channel | Blake2sChannel, hash_: MerkleHash, root: int) -> None:
    """Absorb a root of either hash into either channel, injectively.

    A Poseidon252Channel takes a Poseidon root as one felt (`mix_root`) and a Blake2s root as
    its eight little-endian u32 words (`mix_u32s`, which packs them 7 per felt). A
    Blake2sChannel takes the 32 big-endian bytes of either (`mix_root`).
    """
    digest = hash_.to_bytes(root)
    if isinstance(channel, Blake2sChannel):
        channel.mix_root(digest)
    elif isinstance(hash_, Poseidon252Hash):
        channel.mix_root(root)
    else:
        channel.mix_u32s(struct.unpack("<8I", digest))
