"""The matmul proof: honest proofs of many shapes verify, tampering is caught by a named check."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.matmul.instance import MatmulInstance
from cairn.prover.matmul.proof import MatmulProof
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.matmul.verifier import verify_matmul
from cairn.prover.sumcheck.proof import SumcheckProof


def prove(m, k, n, seed=0, lo=-128, hi=128):
    rng = np.random.default_rng(seed)
    return prove_matmul(make_instance(rng.integers(lo, hi, (m, k)), rng.integers(lo, hi, (k, n))))


@pytest.mark.parametrize(
    "shape", [(1, 1, 1), (3, 5, 2), (4, 1, 3), (1, 7, 1), (8, 8, 8), (17, 33, 9), (64, 128, 32)]
)
def test_honest_proofs_verify(shape):
    proof = prove(*shape)
    assert len(proof.sumcheck.rounds) == (shape[1] - 1).bit_length()
    verify_matmul(proof)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32))
def test_random_shapes_verify(m, k, n, seed):
    verify_matmul(prove(m, k, n, seed))


def test_large_entries():
    proof = prove(3, 4, 2, lo=-(1 << 13), hi=1 << 13)
    verify_matmul(proof)


def _with(proof, **changes):
    inst = proof.instance
    fields = dict(m=inst.m, k=inst.k, n=inst.n, a=inst.a, b=inst.b, c=inst.c)
    fields.update(changes)
    return MatmulProof(MatmulInstance(**fields), proof.sumcheck)


def test_wrong_product_rejected():
    proof = prove(5, 6, 3)
    c = proof.instance.c.copy()
    c[2, 1] += 1
    with pytest.raises(VerificationError, match="matmul.final_evaluation"):
        verify_matmul(_with(proof, c=c))
    # A prover that proves the wrong C from scratch is also caught.
    forged = prove_matmul(MatmulInstance(5, 6, 3, proof.instance.a, proof.instance.b, c))
    with pytest.raises(VerificationError, match="matmul.final_evaluation"):
        verify_matmul(forged)


@pytest.mark.parametrize("name", ["a", "b"])
def test_tampered_operand_rejected(name):
    proof = prove(4, 4, 4)
    mat = getattr(proof.instance, name).copy()
    mat[0, 0] += 1
    with pytest.raises(VerificationError, match="matmul.final_evaluation"):
        verify_matmul(_with(proof, **{name: mat}))


@pytest.mark.parametrize("dim", ["m", "k", "n"])
def test_wrong_dimension_rejected(dim):
    proof = prove(4, 4, 4)
    with pytest.raises(VerificationError, match="instance.shape"):
        verify_matmul(_with(proof, **{dim: 5}))


def test_tampered_rounds_rejected():
    proof = prove(4, 8, 4)
    for i in range(3):
        for j in range(2):
            rounds = [list(r) for r in proof.sumcheck.rounds]
            rounds[i][j] = rounds[i][j] + QM31(0, 0, 1, 0)
            with pytest.raises(VerificationError, match="matmul.final_evaluation"):
                verify_matmul(MatmulProof(proof.instance, SumcheckProof(rounds)))


def test_bad_operands():
    with pytest.raises(ValueError, match="cannot multiply"):
        make_instance(np.ones((2, 3), dtype=np.int64), np.ones((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="signed M31"):
        make_instance(np.full((1, 2), 1 << 30), np.ones((2, 1), dtype=np.int64))
