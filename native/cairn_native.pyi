"""Starknet Poseidon (hades over the Stark field, width 3), implemented with starknet-crypto.

Felts are ints in [0, Stark prime); anything else raises ValueError.
"""

def hades(a: int, b: int, c: int) -> tuple[int, int, int]:
    """The Poseidon permutation of the state [a, b, c]."""

def hash_many(felts: bytes) -> bytes:
    """Cairo's poseidon_hash_span of concatenated 32-byte big-endian felts, as 32 bytes.

    Appends 1, pads with 0 to an even length, absorbs pairs into state words 0 and 1.
    """
