"""Starknet Poseidon (hades over the Stark field, width 3, via starknet-crypto) and batched
Merkle hashing (Poseidon and Blake2s).

Felts are ints in [0, Stark prime); anything else raises ValueError.
"""

def hades(a: int, b: int, c: int) -> tuple[int, int, int]:
    """The Poseidon permutation of the state [a, b, c]."""

def hash_many(felts: bytes) -> bytes:
    """Cairo's poseidon_hash_span of concatenated 32-byte big-endian felts, as 32 bytes.

    Appends 1, pads with 0 to an even length, absorbs pairs into state words 0 and 1.
    """

def hash_m31_rows(words: bytes, row_len: int) -> bytes:
    """Poseidon Merkle leaves: hash_many of each row of `row_len` M31 values.

    `words` are little-endian u32 values below p; each row is packed 8 per felt (big-endian
    31-bit limbs, a last partial felt gets count * 2^248). Returns 32 big-endian bytes per row.
    """

def hash_pairs(felts: bytes) -> bytes:
    """poseidon_hash(left, right) of each consecutive pair of 32-byte big-endian felts."""

def blake2s_rows(data: bytes, row_bytes: int) -> bytes:
    """Blake2s-256 of each row of `row_bytes` bytes, 32 bytes per row."""

def blake2s_grind(prefixed: bytes, n_bits: int) -> int:
    """Smallest nonce with >= n_bits trailing zeros in the first 8 bytes (LE) of
    Blake2s(prefixed ‖ LE64(nonce)); `prefixed` is 32 bytes, n_bits < 64."""
