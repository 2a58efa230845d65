"""The fixed exp table T[e] = round(2^θ·exp(−e/4096)), e < 2^16, and its pinned commitment.

The verifier never reads the table's root from a proof: it builds the commitment from
EXP_TABLE_ROOTS, a protocol constant that a test recomputes.
"""

from __future__ import annotations

import functools

import numpy as np

from cairn.prover.pcs.params import WITNESS_PCS
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.prover import CommitmentData, commit
from cairn.prover.softmax.params import EXP_BITS, EXP_RES_BITS, THETA
from cairn.prover.walk.layer import FixedTable

EXP_TABLE_ROOTS: dict[int, dict[str, int]] = {
    19: {
        "blake2s": 0x913E468859251E2CE8E1C0501BE6D1FF217A66AF70F02C7BB0E2EABB71109800,
        "poseidon": 0x007439A6231CAD2FCF1F374C726ABC7C4F7D7FEF945979604151AF5870EE3166,
    },
}
"""By θ, then witness hash: the Merkle root of exp_table(θ) committed with `WITNESS_PCS[hash]`
(as Commitment.root)."""


@functools.cache
def exp_table(theta: int = THETA) -> np.ndarray:
    """T (2^16 int64, read-only). float64 suffices: every 2^θ·exp(−e/4096) is ≥ 10^-6 away from
    a rounding tie (tests check), far beyond exp's error of an ulp or two."""
    e = np.arange(1 << EXP_BITS, dtype=np.float64)
    table = np.rint(np.ldexp(np.exp(-np.ldexp(e, -EXP_RES_BITS)), theta)).astype(np.int64)
    table.flags.writeable = False
    return table


@functools.cache
def exp_table_commitment(theta: int, hash_: str) -> CommitmentData:
    """The prover's commitment to T (message, codeword, tree), built once per θ and hash."""
    return commit(exp_table(theta), WITNESS_PCS[hash_])[1]


def pinned_exp_commitment(theta: int, hash_: str) -> Commitment:
    """The verifier's view of T's commitment: the pinned root, never one from a proof. A θ
    with no table (root 0) never reaches an opening: `softmax.params` refuses it first; the
    calldata encoder only needs the table's size."""
    return Commitment(EXP_TABLE_ROOTS.get(theta, {}).get(hash_, 0), EXP_BITS, hash_)


def exp_table_name(theta: int) -> str:
    """The table's name in the walk's witness opening: θ fixes its content, so every attn
    layer of a model with the same θ leaves its claims on one polynomial."""
    return f"softmax.exp.{theta}"


def fixed_tables(theta: int, hash_: str) -> dict[str, FixedTable]:
    """The exp table as the walk opens it, committed with the layer's witness hash (the
    prover's data looked up when it is needed)."""
    return {
        exp_table_name(theta): FixedTable(
            pinned_exp_commitment(theta, hash_), lambda: exp_table_commitment(theta, hash_)
        )
    }
