"""The public statement of a matmul proof and how it enters the transcript.

Prover and verifier both call `absorb_instance` before drawing any challenge, so the row and
column point depend on the tag, the dimensions and all three matrices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.fields.m31 import embed
from cairn.prover.mle import next_pow2

DOMAIN_TAG = int.from_bytes(b"cairn/matmul/v1", "big")


@dataclass(frozen=True)
class MatmulInstance:
    """A: m x k, B: k x n, C: m x n as signed integer matrices (|x| <= (p-1)/2)."""

    m: int
    k: int
    n: int
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray

    @property
    def padded_dims(self) -> tuple[int, int, int]:
        return next_pow2(self.m), next_pow2(self.k), next_pow2(self.n)

    def shapes_consistent(self) -> bool:
        return (
            self.a.shape == (self.m, self.k)
            and self.b.shape == (self.k, self.n)
            and self.c.shape == (self.m, self.n)
        )


def absorb_instance(channel: Poseidon252Channel, inst: MatmulInstance) -> None:
    channel.mix_root(DOMAIN_TAG)
    for d in (inst.m, inst.k, inst.n):
        channel.mix_u64(d)
    for mat in (inst.a, inst.b, inst.c):
        channel.mix_m31s(embed(mat).ravel())
