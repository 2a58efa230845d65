"""Matmul prover: O(mk + kn + mn) field work on top of computing C.

Claim: C~(r_row, r_col) = sum_x A~(r_row, x) * B~(x, r_col) over x in {0,1}^log k.
The two factors are a row combination of A and a column combination of B, computed exactly
on BLAS; the sum-check then runs on two vectors of length k.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.linalg import exact_matmul
from cairn.prover.matmul.instance import (
    UNBOUND,
    MatmulInstance,
    WeightBinding,
    absorb_instance,
    expect_ranges,
)
from cairn.prover.matmul.proof import MatmulProof
from cairn.prover.mle import (
    col_combination,
    eq_table,
    log2_exact,
    pad_tensor,
    row_combination,
)
from cairn.prover.pcs.prover import CommitmentData, open_batch
from cairn.prover.sumcheck.prover import Product, prove_sumcheck


def make_instance(a: np.ndarray, b: np.ndarray) -> MatmulInstance:
    """The statement for signed integer operands: computes C exactly. Refuses operands whose
    no-wrap bound the verifier would refuse (statement.range), even if this C fits."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply shapes {a.shape} and {b.shape}")
    for operand in (a, b):
        embed(operand)  # raises if an entry leaves the signed M31 range
    inst = MatmulInstance(a.shape[0], a.shape[1], b.shape[1], a, b, exact_matmul(a, b))
    expect_ranges(inst)
    return inst


def prove_matmul(
    inst: MatmulInstance,
    b_data: CommitmentData | None = None,
    binding: WeightBinding = UNBOUND,
) -> MatmulProof:
    """With `b_data` (pcs.prover.commit_tensor of inst.b), B leaves the proof: only its
    commitment, b_value and the PCS opening of B~(r_inner, r_col) = b_value remain, and the
    proof holds for the registered weight `binding` names (none by default)."""
    if b_data:
        inst = replace(inst, b_commitment=b_data.commitment, binding=binding)
    elif binding != UNBOUND:
        raise ValueError("a binding names the registered weight of a committed B")
    channel = Poseidon252Channel()
    absorb_instance(channel, inst)
    mp, _, np_ = inst.padded_dims
    challenges = channel.draw_secure_felts(log2_exact(mp) + log2_exact(np_))
    r_row, r_col = challenges[: log2_exact(mp)], challenges[log2_exact(mp) :]
    a_row = row_combination(eq_table(r_row), pad_tensor(embed(inst.a)))
    b_col = col_combination(pad_tensor(embed(inst.b)), eq_table(r_col))
    sumcheck, r_inner, finals = prove_sumcheck([a_row, b_col], [Product((0, 1))], channel)
    if not b_data:
        return MatmulProof(inst, sumcheck)
    b_value = finals[1]
    channel.mix_felts([b_value])
    opening = open_batch([(b_data, [Claim((*r_inner, *r_col), b_value)])], channel)
    return MatmulProof(replace(inst, b=None), sumcheck, b_value, opening)
