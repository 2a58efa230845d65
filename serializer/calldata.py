"""Proof <-> felt252 calldata, the layout of docs/calldata.md that verifier_cairo reads.

    [0] CALLDATA_VERSION   [1] KIND_MATMUL   [2] m   [3] k   [4] n
    len(A) ‖ A packed 8 M31 per felt, then the same for B and C
    n_rounds ‖ per round: n_coeffs ‖ coefficients as 1‖a‖b‖c‖d felts

Matrix entries are signed integers embedded mod p. Decoding checks everything the Cairo
reader checks and names the offset of the first bad felt.
"""

from __future__ import annotations

import numpy as np

from cairn.prover.channels.poseidon import (
    M31_PER_FELT,
    STARK_PRIME,
    PackingError,
    pack_m31s,
    unpack_m31s,
)
from cairn.prover.fields.m31 import P, embed, lift
from cairn.prover.fields.qm31 import QM31
from cairn.prover.matmul.instance import MatmulInstance
from cairn.prover.matmul.proof import DEGREE, MatmulProof
from cairn.prover.mle import log2_exact, next_pow2
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.serializer.errors import MalformedProofError

CALLDATA_VERSION = 1
KIND_MATMUL = 1
MAX_DIM = 1 << 20


def encode(proof: MatmulProof) -> list[int]:
    inst = proof.instance
    if inst.b is None:
        raise ValueError("calldata for committed-weight matmul proofs is not supported yet")
    out = [CALLDATA_VERSION, KIND_MATMUL, inst.m, inst.k, inst.n]
    for mat in (inst.a, inst.b, inst.c):
        words = pack_m31s(embed(mat).ravel())
        out += [len(words), *words]
    out.append(len(proof.sumcheck.rounds))
    for rnd in proof.sumcheck.rounds:
        out += [len(rnd), *(x.pack(1) for x in rnd)]
    return out


def unpack_qm31(felt: int) -> QM31:
    """Inverse of QM31.pack(1): checks the 2^124 sentinel and that each limb is < p."""
    if felt >> 124 != 1:
        raise MalformedProofError("qm31", "sentinel is not 1", "calldata.sentinel")
    limbs = [(felt >> (31 * (3 - i))) & P for i in range(4)]
    if P in limbs:
        raise MalformedProofError("qm31", "limb equal to p", "calldata.limb")
    return QM31(*limbs)


class _Reader:
    def __init__(self, felts: list[int]) -> None:
        self.felts = felts
        self.pos = 0

    def fail(self, problem: str, check: str, at: int | None = None) -> MalformedProofError:
        return MalformedProofError(
            f"calldata[{self.pos - 1 if at is None else at}]", problem, check
        )

    def take(self, what: str) -> int:
        if self.pos >= len(self.felts):
            raise self.fail(f"ended before {what}", "calldata.truncated", self.pos)
        v = self.felts[self.pos]
        self.pos += 1
        return v

    def bounded(self, what: str, lo: int, hi: int, check: str) -> int:
        v = self.take(what)
        if not lo <= v <= hi:
            raise self.fail(f"{what} = {v} not in [{lo}, {hi}]", check)
        return v


def decode(felts: list[int]) -> MatmulProof:
    """Read and check calldata in the order verifier_cairo/src/calldata.cairo does; each
    failure carries the same check name the contract reverts with."""
    for i, f in enumerate(felts):
        if not 0 <= f < STARK_PRIME:
            raise MalformedProofError(f"calldata[{i}]", "not a felt252")
    rd = _Reader(felts)
    rd.bounded("version", CALLDATA_VERSION, CALLDATA_VERSION, "calldata.version")
    rd.bounded("proof kind", KIND_MATMUL, KIND_MATMUL, "calldata.kind")
    m, k, n = (rd.bounded(d, 1, MAX_DIM, "calldata.dims") for d in "mkn")
    mats = []
    for name, (rows, cols) in zip("abc", ((m, k), (k, n), (m, n)), strict=True):
        count = rows * cols
        n_words = -(-count // M31_PER_FELT)
        rd.bounded(f"len({name})", n_words, n_words, "calldata.length")
        start = rd.pos
        words = [rd.take(f"{name} words") for _ in range(n_words)]
        try:
            values = unpack_m31s(words, count)
        except PackingError as e:
            raise rd.fail(f"{name}: {e}", f"calldata.{e.kind}", start + e.index) from None
        mats.append(lift(values).reshape(rows, cols))
    n_rounds = log2_exact(next_pow2(k))
    rd.bounded("n_rounds", n_rounds, n_rounds, "sumcheck.round_count")
    rounds = []
    for i in range(n_rounds):
        rd.bounded(f"round {i} length", DEGREE, DEGREE, "sumcheck.round_degree")
        rnd = []
        for _ in range(DEGREE):
            felt = rd.take(f"round {i} coefficient")
            try:
                rnd.append(unpack_qm31(felt))
            except MalformedProofError as e:
                raise rd.fail(e.problem, e.check) from None
        rounds.append(rnd)
    if rd.pos != len(felts):
        raise rd.fail(f"{len(felts) - rd.pos} extra felts", "calldata.extra", rd.pos)
    inst = MatmulInstance(m, k, n, *(np.asarray(x, dtype=np.int64) for x in mats))
    return MatmulProof(inst, SumcheckProof(rounds))
