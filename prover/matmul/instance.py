"""The public statement of a matmul proof and how it enters the transcript.

Prover and verifier both call `absorb_instance` before drawing any challenge, so the row and
column point depend on the tag, the dimensions and all three matrices (with a committed B:
which registered weight B claims to be, its commitment, A and C).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.fields.m31 import embed
from cairn.prover.merkle.hashers import get_hash, mix_root
from cairn.prover.mle import log2_exact, next_pow2
from cairn.prover.pcs.proof import Commitment
from cairn.prover.ranges import Relation, check_ranges, product_bound

DOMAIN_TAG = int.from_bytes(b"cairn/matmul/v1", "big")
COMMITTED_TAG = int.from_bytes(b"cairn/matmul-cw/v1", "big")  # B bound by a PCS commitment

RELATIONS = (
    Relation("c = a·b", ("a", "b"), lambda t, _: product_bound(t["a"], t["b"], euclid=False)),
)
"""C's no-wrap bound (docs/matmul.md, "Over the integers"): the two Hölder terms, as the Cairo
verifier computes them; unchecked when B is committed."""


NO_MODEL = 0  # the model id of a binding to no model; never registrable (docs/registry.md)


@dataclass(frozen=True)
class WeightBinding:
    """Which registered weight a committed B is (docs/registry.md): weight `weight` of model
    `model_id`, whose configuration hash is `config_hash`. All three are felts absorbed before
    any challenge, so a proof holds for that one weight of that one model; model_id 0 binds
    none (such a proof verifies off chain against a pinned commitment only)."""

    model_id: int = NO_MODEL
    weight: int = 0
    config_hash: int = 0


UNBOUND = WeightBinding()


@dataclass(frozen=True)
class MatmulInstance:
    """A: m x k, B: k x n, C: m x n as signed integer matrices (|x| <= (p-1)/2).

    With `b_commitment` set, B is a committed weight: the verifier sees only the commitment
    to the MLE of B padded to k̂ x n̂ (b is None in a proof; the prover holds it) and `binding`
    names the registered weight it is.
    """

    m: int
    k: int
    n: int
    a: np.ndarray
    b: np.ndarray | None
    c: np.ndarray
    b_commitment: Commitment | None = None
    binding: WeightBinding = UNBOUND

    @property
    def padded_dims(self) -> tuple[int, int, int]:
        return next_pow2(self.m), next_pow2(self.k), next_pow2(self.n)

    def shapes_consistent(self) -> bool:
        kp, np_ = next_pow2(self.k), next_pow2(self.n)
        b_ok = (
            self.b is None and self.b_commitment.n_vars == log2_exact(kp * np_)
            if self.b_commitment
            else self.b is not None and self.b.shape == (self.k, self.n)
        )
        return b_ok and self.a.shape == (self.m, self.k) and self.c.shape == (self.m, self.n)


def absorb_instance(channel: Poseidon252Channel, inst: MatmulInstance) -> None:
    """Public B: tag, m, k, n, A, B, C. Committed B: its own tag, the binding (model id,
    weight index, config hash, one felt each), m, k, n, B's root and n_vars (mix_root of
    docs/merkle.md), A, C."""
    cw = inst.b_commitment
    channel.mix_root(COMMITTED_TAG if cw else DOMAIN_TAG)
    if cw:
        for felt in (inst.binding.model_id, inst.binding.weight, inst.binding.config_hash):
            channel.mix_root(felt)
    for d in (inst.m, inst.k, inst.n):
        channel.mix_u64(d)
    if cw:
        mix_root(channel, get_hash(cw.hash), cw.root)
        channel.mix_u64(cw.n_vars)
    for mat in (inst.a, inst.c) if cw else (inst.a, inst.b, inst.c):
        channel.mix_m31s(embed(mat).ravel())


def expect_ranges(inst: MatmulInstance) -> None:
    """Raise statement.range unless C = A·B cannot wrap mod p; a committed B is never seen,
    so then the statement holds mod p only (`ranges.mod_p_only`)."""
    tensors = {"a": inst.a, "c": inst.c} | ({"b": inst.b} if inst.b is not None else {})
    committed = {"b"} if inst.b_commitment else set()
    check_ranges(RELATIONS, tensors, (inst.m, inst.k, inst.n), committed)
