"""The claim walk's shared parts: same-poly accumulation and settlement of public tensors."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import random_array
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.posenc.model import make_statement
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import eq_eval, eq_table, evaluate
from cairn.prover.sameply.prover import prove_sameply
from cairn.prover.sameply.verifier import verify_sameply
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from tests.proof_mutations import mutations


def _claims(values: np.ndarray, n_claims: int, rng: np.random.Generator) -> list[Claim]:
    n = int(np.log2(len(values)))
    out = []
    for _ in range(n_claims):
        point = tuple(QM31(*map(int, rng.integers(0, 2**31 - 1, 4))) for _ in range(n))
        out.append(Claim(point, evaluate(values, point)))
    return out


def _run(values: np.ndarray, claims: list[Claim]) -> tuple[Claim, Claim]:
    table = QM31Array.from_base(values)
    proof, merged = prove_sameply(table, claims, Poseidon252Channel())
    checked = verify_sameply(proof, claims, len(claims[0].point), Poseidon252Channel())
    return merged, checked


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 6), st.integers(1, 4), st.integers(0, 2**32))
def test_sameply_merges_true_claims_into_a_true_claim(n_vars, n_claims, seed):
    rng = np.random.default_rng(seed)
    values = random_array(rng, 1 << n_vars)
    merged, checked = _run(values, _claims(values, n_claims, rng))
    assert merged == checked
    assert evaluate(values, merged.point) == merged.value


def test_sameply_rejects_a_false_claim_and_every_tampered_field():
    rng = np.random.default_rng(3)
    values = random_array(rng, 16)
    claims = _claims(values, 3, rng)
    bad = [claims[0], Claim(claims[1].point, claims[1].value + QM31.one()), claims[2]]
    proof, _ = prove_sameply(QM31Array.from_base(values), bad, Poseidon252Channel())
    with pytest.raises(VerificationError) as e:
        verify_sameply(proof, bad, 4, Poseidon252Channel())
    assert e.value.check == "sameply.final_evaluation"
    honest, _ = prove_sameply(QM31Array.from_base(values), claims, Poseidon252Channel())
    for path, tampered in mutations(honest):
        with pytest.raises(VerificationError):
            verify_sameply(tampered, claims, 4, Poseidon252Channel())
        assert path


def test_sameply_counts_are_checked():
    rng = np.random.default_rng(4)
    values = random_array(rng, 8)
    one, two = _claims(values, 1, rng), _claims(values, 2, rng)
    proof, _ = prove_sameply(QM31Array.from_base(values), two, Poseidon252Channel())
    for claims, pf, check in [(one, proof, "sameply.proof"), (two, None, "sameply.proof")]:
        with pytest.raises(VerificationError) as e:
            verify_sameply(pf, claims, 3, Poseidon252Channel())
        assert e.value.check == check
    with pytest.raises(VerificationError) as e:
        verify_sameply(proof, two, 4, Poseidon252Channel())
    assert e.value.check == "sameply.claims"


def test_eq_eval_matches_eq_table():
    rng = np.random.default_rng(5)
    a = [QM31(*map(int, rng.integers(0, 2**31 - 1, 4))) for _ in range(3)]
    for x in range(8):
        bits = [QM31.from_int((x >> (2 - i)) & 1) for i in range(3)]
        assert eq_eval(a, bits) == eq_table(a).item(x)


@pytest.fixture
def posenc_proof():
    rng = np.random.default_rng(6)
    st_ = make_statement(rng.integers(-9, 9, (3, 5)), rng.integers(-9, 9, (9, 5)))
    return prove_walk(LAYERS["posenc"], st_)


def test_walk_settlement_names_the_false_claim(posenc_proof):
    """A lying x_value fails at the input; a statement whose P does not produce O fails at the
    weight: inputs are settled before weights, each against its public tensor."""
    spec = LAYERS["posenc"]
    st_ = posenc_proof.statement
    lying = dataclasses.replace(
        posenc_proof, layer=dataclasses.replace(posenc_proof.layer, x_value=QM31.zero())
    )
    p = st_.weights["p"].copy()
    p[0, 0] += 1
    false_statement = prove_walk(spec, dataclasses.replace(st_, weights={"p": p}))
    for proof, check in [(lying, "walk.input_claim"), (false_statement, "walk.weight_claim")]:
        with pytest.raises(VerificationError) as e:
            verify_walk(spec, proof)
        assert e.value.check == check


def test_walk_requires_claims_on_every_public_tensor_and_the_right_kind(posenc_proof):
    spec = LAYERS["posenc"]
    for group in ("inputs", "weights"):
        with pytest.raises(VerificationError) as e:
            verify_walk(spec, dataclasses.replace(posenc_proof, **{group: {}}))
        assert e.value.check == f"walk.{group[:-1]}_claims"
    other = dataclasses.replace(posenc_proof.statement, kind="qkv")
    with pytest.raises(VerificationError) as e:
        verify_walk(spec, dataclasses.replace(posenc_proof, statement=other))
    assert e.value.check == "statement.kind"
