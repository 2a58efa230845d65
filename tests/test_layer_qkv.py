"""The QKV layer: exact outputs, honest proofs, each tampering caught by a check."""

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.qkv import model
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import eq_table, prefix_mask
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer.codec import decode, encode
from tests.proof_mutations import check_of, rejections

SPEC = LAYERS["qkv"]


def random_weights(rng, e, h, lo=-128, hi=128):
    names = [f"{kind}_{j}" for kind in ("w", "b") for j in "qkv"]
    return {n: rng.integers(lo, hi, (e, h) if n[0] == "w" else (h,)) for n in names}


def statement(s, e, h, seed=0):
    rng = np.random.default_rng(seed)
    return model.make_statement(rng.integers(-128, 128, (s, e)), random_weights(rng, e, h))


def reference(x, weights):
    """Q, K, V by plain int64 arithmetic, row by row."""
    out = {}
    for j in "qkv":
        w, b = weights[f"w_{j}"], weights[f"b_{j}"]
        out[j] = np.array(
            [[int(row @ w[:, c]) + int(b[c]) for c in range(w.shape[1])] for row in x]
        )
    return out


SHAPES = [(1, 1, 1), (1, 3, 2), (2, 1, 5), (3, 5, 2), (5, 3, 7), (4, 8, 4), (7, 9, 6), (16, 12, 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_outputs_equal_reference(shape):
    st_ = statement(*shape)
    want = reference(st_.inputs["x"], st_.weights)
    assert set(st_.outputs) == {"q", "k", "v"}
    for j in "qkv":
        assert st_.outputs[j].dtype == np.int64
        np.testing.assert_array_equal(st_.outputs[j], want[j])


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify(shape):
    proof = prove_walk(SPEC, statement(*shape))
    assert len(proof.layer.sumcheck.rounds) == (shape[1] - 1).bit_length()
    assert (len(proof.layer.bias), len(proof.layer.x), len(proof.layer.w)) == (3, 3, 3)
    verify_walk(SPEC, proof)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32))
def test_random_shapes_verify(s, e, h, seed):
    verify_walk(SPEC, prove_walk(SPEC, statement(s, e, h, seed)))


def test_large_entries_verify():
    rng = np.random.default_rng(5)
    weights = random_weights(rng, 6, 3, -(1 << 12), 1 << 12)
    st_ = model.make_statement(rng.integers(-(1 << 12), 1 << 12, (5, 6)), weights)
    np.testing.assert_array_equal(st_.outputs["v"], reference(st_.inputs["x"], weights)["v"])
    verify_walk(SPEC, prove_walk(SPEC, st_))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.data())
def test_prefix_mask_equals_brute_force(n, data):
    s = data.draw(st.integers(0, 1 << n))
    point = [QM31(*data.draw(st.tuples(*[st.integers(0, 2**31 - 2)] * 4))) for _ in range(n)]
    brute = eq_table(point)[:s].sum() if s else QM31.zero()
    assert prefix_mask(point, s) == brute


def test_prefix_mask_on_the_hypercube_is_the_mask():
    for n in range(4):
        for s in range(1 << n + 1):
            for i, bits in enumerate(itertools.product([0, 1], repeat=n)):
                point = [QM31.from_int(b) for b in bits]
                assert prefix_mask(point, s) == QM31.from_int(int(i < s))


def test_every_tampering_is_rejected():
    """Every QM31 of the layer and settlement proofs, every count, every optional proof."""
    proof = prove_walk(SPEC, statement(3, 5, 3, seed=1))
    hit = rejections(SPEC, proof)
    assert {
        "qkv.value_count",
        "qkv.final_evaluation",
        "sumcheck.round_count",
        "sumcheck.round_degree",
        "sameply.proof",
        "sameply.final_evaluation",
        "walk.input_claims",
        "walk.weight_claims",
    } <= set(hit)


@pytest.mark.parametrize(
    ("field", "mutate", "check"),
    [
        ("bias", lambda v: v[:2], "qkv.value_count"),
        ("x", lambda v: [*v, v[0]], "qkv.value_count"),
        ("w", lambda v: v[1:], "qkv.value_count"),
        ("bias", lambda v: [v[0] + QM31.one(), *v[1:]], "qkv.final_evaluation"),
        ("x", lambda v: [v[0], v[1] + QM31.one(), v[2]], "qkv.final_evaluation"),
        ("w", lambda v: [*v[:2], v[2] + QM31.one()], "qkv.final_evaluation"),
    ],
)
def test_named_checks(field, mutate, check):
    proof = prove_walk(SPEC, statement(5, 6, 3))
    layer = dataclasses.replace(proof.layer, **{field: mutate(getattr(proof.layer, field))})
    assert check_of(SPEC, dataclasses.replace(proof, layer=layer)) == check


def test_tampered_sumcheck_rounds():
    proof = prove_walk(SPEC, statement(5, 6, 3))
    rounds = proof.layer.sumcheck.rounds

    def with_rounds(r):
        sc = dataclasses.replace(proof.layer.sumcheck, rounds=r)
        return dataclasses.replace(proof, layer=dataclasses.replace(proof.layer, sumcheck=sc))

    assert check_of(SPEC, with_rounds(rounds[:-1])) == "sumcheck.round_count"
    assert check_of(SPEC, with_rounds([rounds[0][:1], *rounds[1:]])) == "sumcheck.round_degree"
    bumped = [[rounds[0][0], rounds[0][1] + QM31.one(), *rounds[0][2:]], *rounds[1:]]
    assert check_of(SPEC, with_rounds(bumped)) == "qkv.final_evaluation"


def test_wrong_output_rejected():
    """A wrong public output changes the verifier's own output claim: the sum-check fails."""
    honest = statement(4, 5, 3)
    q = honest.outputs["q"].copy()
    q[3, 2] += 1
    forged = dataclasses.replace(honest, outputs={**honest.outputs, "q": q})
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "qkv.final_evaluation"
    # The honest proof does not carry over to the forged statement either.
    carried = dataclasses.replace(prove_walk(SPEC, honest), statement=forged)
    assert check_of(SPEC, carried) is not None


def test_bias_in_padded_rows_is_not_the_statement():
    """Outputs are exactly s × h; ŝ rows carrying the bias (posenc's convention) are refused."""
    honest = statement(3, 4, 2)
    padded = {j: np.vstack([o, honest.weights[f"b_{j}"][None]]) for j, o in honest.outputs.items()}
    forged = dataclasses.replace(honest, outputs=padded)
    with pytest.raises(VerificationError, match="statement.shape"):
        verify_walk(SPEC, dataclasses.replace(prove_walk(SPEC, honest), statement=forged))


def _bad_statements():
    st_ = statement(3, 4, 2)
    x, ws, out = st_.inputs["x"], st_.weights, st_.outputs
    return {
        "dims count": dataclasses.replace(st_, dims=(3, 4)),
        "zero dim": dataclasses.replace(st_, dims=(0, 4, 2)),
        "dims disagree": dataclasses.replace(st_, dims=(3, 4, 3)),
        "x shape": dataclasses.replace(st_, inputs={"x": x[:2]}),
        "x missing": dataclasses.replace(st_, inputs={}),
        "output rows": dataclasses.replace(st_, outputs={**out, "k": out["k"][:2]}),
        "output missing": dataclasses.replace(st_, outputs={"q": out["q"], "k": out["k"]}),
        "bias 2-D": dataclasses.replace(st_, weights={**ws, "b_v": ws["b_v"][None]}),
        "weight shape": dataclasses.replace(st_, weights={**ws, "w_k": ws["w_k"].T}),
        "extra weight": dataclasses.replace(st_, weights={**ws, "w_o": ws["w_q"]}),
    }


@pytest.mark.parametrize("case", list(_bad_statements()))
def test_bad_statements_refused(case):
    honest = prove_walk(SPEC, statement(3, 4, 2))
    bad = _bad_statements()[case]
    with pytest.raises(VerificationError, match="statement.shape"):
        verify_walk(SPEC, dataclasses.replace(honest, statement=bad))
    with pytest.raises(VerificationError, match="statement.shape"):
        prove_walk(SPEC, bad)


def test_make_statement_refuses_bad_operands():
    rng = np.random.default_rng(0)
    ws = random_weights(rng, 4, 2)
    with pytest.raises(ValueError, match="shapes"):
        model.make_statement(rng.integers(0, 9, (3, 5)), ws)  # e mismatch
    with pytest.raises(ValueError, match="shapes"):
        model.make_statement(rng.integers(0, 9, (3, 4)), {**ws, "b_q": ws["w_q"]})
    big = np.full((3, 4), 1 << 22)  # in range itself, but 4 · 2^22 · 127 is not
    with pytest.raises(ValueError, match="product entry"):
        model.make_statement(big, {**ws, "w_q": np.full((4, 2), 127)})


def test_proof_round_trips_through_the_codec():
    proof = prove_walk(SPEC, statement(3, 5, 3)).layer
    assert decode(encode(proof), ProjectionProof, "proof") == proof
