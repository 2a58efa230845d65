"""Starknet Poseidon over felt252 (the native `cairn_native` module) and M31 packing.

Every Poseidon use in Cairn goes through this module, so the backend can change in one place.
The permutation runs in Rust (starknet-crypto, built from native/ by scripts/setup.sh): a
512x512 matrix hash is ~16k permutations, too slow through a per-call Python binding. Felts
cross the boundary as one bytes object of 32-byte big-endian words.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np

from cairn.prover.fields.m31 import P

try:
    import cairn_native
except ImportError as e:
    raise ImportError(
        "cairn_native is missing: run scripts/setup.sh to build the native Poseidon module"
    ) from e

STARK_PRIME = (1 << 251) + 17 * (1 << 192) + 1
M31_PER_FELT = 8
LENGTH_SHIFT = 1 << 248  # 8 * 31 bits: a partial word's count lives above the limbs
FELT_BYTES = 32


def hades(a: int, b: int, c: int) -> tuple[int, int, int]:
    """The Poseidon permutation of [a, b, c]; ValueError unless each is in [0, STARK_PRIME)."""
    return cairn_native.hades(a, b, c)


def poseidon_hash(x: int, y: int) -> int:
    return hades(x, y, 2)[0]


def pow_grind(prefixed: int, n_bits: int) -> int:
    """The least nonce with poseidon_hash(prefixed, nonce) ≡ 0 mod 2^n_bits (0 ≤ n_bits < 64)."""
    return cairn_native.poseidon_grind(prefixed.to_bytes(FELT_BYTES, "big"), n_bits)


def hash_many(xs: Sequence[int]) -> int:
    """Sponge of rate 2: append 1, pad with 0 to even length (Cairo's poseidon_hash_span).

    ValueError unless every felt is in [0, STARK_PRIME).
    """
    try:
        blob = b"".join(map(int.to_bytes, xs, repeat(FELT_BYTES), repeat("big")))
    except OverflowError as e:  # negative or >= 2^256; [p, 2^256) is rejected natively
        raise ValueError(f"hash_many: felts must be in [0, STARK_PRIME): {e}") from e
    return int.from_bytes(cairn_native.hash_many(blob), "big")


def pack_m31s_bytes(values: np.ndarray | Sequence[int]) -> bytes:
    """Pack canonical M31 values 8 per felt252, big-endian 31-bit limbs, as 32-byte words.

    A last partial word of c < 8 values gets c * 2^248 added, so lists of different lengths
    never pack alike (STWO's Merkle-leaf packing). Full words are built with numpy bit
    operations: each value's 31 low bits, concatenated behind 8 zero bits, are the word.
    """
    canonical = "pack_m31s: values must be canonical M31 (0 <= v < p)"
    try:
        arr = np.asarray(values, dtype=np.int64).ravel()
    except OverflowError:
        raise ValueError(canonical) from None
    if arr.size and (arr.min() < 0 or arr.max() >= P):
        raise ValueError(canonical)
    full, rest = divmod(arr.size, M31_PER_FELT)
    limbs = arr[: full * M31_PER_FELT].astype(">u4").view(np.uint8).reshape(full, 8, 4)
    bits = np.unpackbits(limbs, axis=-1)[:, :, 1:].reshape(full, 31 * M31_PER_FELT)
    padded = np.concatenate([np.zeros((full, 8), dtype=np.uint8), bits], axis=1)
    blob = np.packbits(padded, axis=1).tobytes()
    if rest:
        word = 0
        for v in arr[full * M31_PER_FELT :].tolist():
            word = (word << 31) | v
        blob += (word + rest * LENGTH_SHIFT).to_bytes(FELT_BYTES, "big")
    return blob


def pack_m31s(values: np.ndarray | Sequence[int]) -> list[int]:
    """pack_m31s_bytes as felt252 integers (the calldata form)."""
    blob = pack_m31s_bytes(values)
    return [
        int.from_bytes(blob[i : i + FELT_BYTES], "big") for i in range(0, len(blob), FELT_BYTES)
    ]


def hash_with_m31s(prefix: int, values: np.ndarray) -> int:
    """hash_many([prefix, *pack_m31s(values)]) without building Python ints per word."""
    blob = prefix.to_bytes(FELT_BYTES, "big") + pack_m31s_bytes(values)
    return int.from_bytes(cairn_native.hash_many(blob), "big")


class PackingError(ValueError):
    """A packed word that pack_m31s cannot have produced; `kind` is "marker" or "limb"."""

    def __init__(self, index: int, kind: str) -> None:
        problem = "bad length marker" if kind == "marker" else "limb equal to p"
        super().__init__(f"packed word {index}: {problem}")
        self.index = index
        self.kind = kind


def unpack_m31s(words: Sequence[int], count: int) -> np.ndarray:
    """Inverse of pack_m31s for `count` values, rejecting every non-canonical word."""
    full, rest = divmod(count, M31_PER_FELT)
    if len(words) != full + (1 if rest else 0):
        raise ValueError(f"expected {full + (1 if rest else 0)} packed words, got {len(words)}")
    out: list[int] = []
    for i, w in enumerate(words):
        n = M31_PER_FELT if i < full else rest
        marker = 0 if i < full else rest
        if w >> (31 * M31_PER_FELT) != marker or (w & (LENGTH_SHIFT - 1)) >> (31 * n):
            raise PackingError(i, "marker")
        limbs = [(w >> (31 * (n - 1 - j))) & P for j in range(n)]  # P is also the 31-bit mask
        if P in limbs:
            raise PackingError(i, "limb")
        out.extend(limbs)
    return np.array(out, dtype=np.int64)
