"""A sub-transcript on another hash, bound both ways to its parent (docs/channels.md, "Fork
and join").

The softmax proof runs on a Blake2sChannel forked from the Poseidon252 walk: the fork's first
absorbed value is the parent's digest (so it covers the statement and every message before),
and the parent's next absorbed value is the fork's final digest (so it covers every message of
the sub-proof). The two transcripts are then one hash chain.
"""

from __future__ import annotations

import hashlib
import struct

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon252 import Poseidon252Channel


def fork(parent: Poseidon252Channel, tag: str) -> Blake2sChannel:
    """A Blake2s channel seeded with the domain tag, then the parent's digest (32 bytes BE)."""
    child = Blake2sChannel()
    child.mix_root(hashlib.blake2s(tag.encode()).digest())
    child.mix_root(parent.digest.to_bytes(32, "big"))
    return child


def join(parent: Poseidon252Channel, child: Blake2sChannel) -> None:
    """Absorb the child's final digest into the parent as its eight little-endian words."""
    parent.mix_u32s(struct.unpack("<8I", child.digest))
