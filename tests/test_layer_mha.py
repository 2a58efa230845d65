"""Multi-head attention: exact outputs, honest proofs, every tampered field, bad statements,
and the softmax boundary (A is a public input the proof does not relate to S_M)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.mha import prover as mha_prover
from cairn.prover.layers.mha.heads import head_select_table
from cairn.prover.layers.mha.model import MASK_VALUE, make_statement, reference_softmax
from cairn.prover.layers.mha.proof import HeadProductStep
from cairn.prover.layers.registry import LAYERS
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import walk_mutations

SPEC = LAYERS["mha"]
STEPS = ("unpad", "attend", "mask", "heads", "pad")
# (s, h, m, causal): non-powers of two everywhere, s = 1, h = 1, m = 1, exact powers of two.
SHAPES = [
    (1, 1, 1, True),
    (1, 3, 5, False),
    (3, 1, 4, True),
    (3, 2, 3, True),
    (5, 3, 6, False),
    (7, 5, 5, True),
    (4, 4, 4, True),
    (6, 2, 8, False),
    (9, 3, 10, True),
]


def _np2(n):
    return 1 << (n - 1).bit_length()


def _inputs(s, h, m, seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(-64, 64, (s, h * m)) for _ in range(3)]


def _prove(s, h, m, causal, seed=0):
    q, k, v = _inputs(s, h, m, seed)
    return prove_walk(SPEC, make_statement(q, k, v, h, causal, reference_softmax))


def _reference(q, k, v, a, h, causal):
    """Per-head numpy int64 loops, written from docs/layers/mha.md, not from the layer code."""
    s, width = q.shape
    m = width // h
    s_hat, h_hat = _np2(s), _np2(h)
    allowed = np.zeros((s_hat, s_hat), dtype=bool)
    allowed[:s, :s] = np.tril(np.ones((s, s), dtype=bool)) if causal else True
    s_m = np.where(allowed, 0, MASK_VALUE) * np.ones((h_hat, 1, 1), dtype=np.int64)
    o = np.zeros((s_hat, _np2(width)), dtype=np.int64)
    for i in range(h):
        cols = slice(i * m, (i + 1) * m)
        s_m[i][allowed] = (q[:, cols] @ k[:, cols].T)[allowed[:s, :s]]
        o[:s, cols] = a[i] @ v[:, cols]
    return s_m, o


@pytest.mark.parametrize(("s", "h", "m", "causal"), SHAPES)
def test_outputs_are_exact_and_the_proof_verifies(s, h, m, causal):
    proof = _prove(s, h, m, causal)
    st_ = proof.statement
    q, k, v, a = (st_.inputs[n] for n in ("q", "k", "v", "a"))
    s_m, o = _reference(q, k, v, a, h, causal)
    assert np.array_equal(st_.outputs["s_m"], s_m)
    assert np.array_equal(st_.outputs["o"], o)
    verify_walk(SPEC, proof)
    assert proof.inputs == {"a": None, "k": None, "q": None, "v": None}
    assert proof.weights == {}


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 9), st.integers(1, 5), st.integers(1, 9), st.booleans(), st.integers(0, 99))
def test_random_shapes_prove_and_verify(s, h, m, causal, seed):
    verify_walk(SPEC, _prove(s, h, m, causal, seed))


def test_mask_value_and_padded_regions():
    """S_M is ĥ × ŝ × ŝ: the mask value on padded rows, columns, heads and (causal) above the
    diagonal; O is ŝ × d with zeros beyond row s and column h·m."""
    assert -HALF <= MASK_VALUE < 0
    st_ = _prove(3, 3, 3, True).statement
    s_m, o = st_.outputs["s_m"], st_.outputs["o"]
    assert s_m.shape == (4, 4, 4) and o.shape == (4, 16)
    assert (s_m[:, 3, :] == MASK_VALUE).all() and (s_m[:, :, 3] == MASK_VALUE).all()
    assert (s_m[3][:3, :3] == np.where(np.tri(3, dtype=bool), 0, MASK_VALUE)).all()
    assert (s_m[:3, 0, 1] == MASK_VALUE).all()
    assert not o[3:].any() and not o[:, 9:].any()


def _expected_check(path):
    """The check a tampering at `path` (tests/proof_mutations.py) must fail."""
    if path.startswith("inputs."):  # a merge proof where none is due, or a claim dropped
        return "sameply.proof" if path.endswith("=proof") else "walk.input_claims"
    if path.endswith(("rounds-last", "rounds+last")):
        return "sumcheck.round_count"
    if path.endswith(("-last", "+last")):  # a round one coefficient short or long
        return "sumcheck.round_degree"
    return "mha." + path.split(".")[1]  # a coefficient or a sent value: its step's check


def test_every_tampering_fails_its_own_check():
    proof = _prove(3, 2, 3, True, seed=1)
    seen = set()
    values = 0
    for path, tampered in walk_mutations(proof):
        with pytest.raises(VerificationError) as e:
            verify_walk(SPEC, tampered)
        assert e.value.check == _expected_check(path), path
        seen.add(e.value.check)
        values += "last" not in path and path.startswith("layer.")
    assert seen == {f"mha.{step}" for step in STEPS} | {
        "sumcheck.round_count",
        "sumcheck.round_degree",
        "sameply.proof",
        "walk.input_claims",
    }
    # Every coefficient and sent value: 2 per degree-2 round, 3 per degree-3 round, plus the
    # values; unpad 3 rounds (+1), attend 3 (+2), mask 5 (+1), heads 3 (+2), pad 3 (+3).
    assert values == (2 * 3 + 1) + (3 * 3 + 2) + (3 * 5 + 1) + (3 * 3 + 2) + (2 * 3 + 3)


def _false_statement(proof, group, name, index, delta):
    st_ = proof.statement
    tensors = dict(getattr(st_, group))
    t = tensors[name].copy()
    t[index] += delta
    tensors[name] = t
    return dataclasses.replace(st_, **{group: tensors})


@pytest.mark.parametrize(
    ("group", "name", "index", "check"),
    [
        ("outputs", "s_m", (3, 0, 0), "mha.mask"),  # a padded head's allowed entry
        ("outputs", "s_m", (0, 3, 1), "mha.mask"),  # a padded row
        ("outputs", "s_m", (1, 0, 1), "mha.mask"),  # above the diagonal (causal)
        ("outputs", "s_m", (1, 2, 1), "mha.mask"),  # a real score
        ("outputs", "o", (3, 0), "mha.unpad"),  # a padded row of O
        ("outputs", "o", (0, 7), "mha.unpad"),  # a padded column of O
        ("outputs", "o", (2, 4), "mha.unpad"),  # a real output
        ("inputs", "q", (2, 0), "mha.mask"),
        ("inputs", "k", (1, 5), "mha.mask"),
        ("inputs", "v", (0, 3), "mha.unpad"),
        ("inputs", "a", (1, 2, 0), "mha.unpad"),
    ],
)
def test_honest_prover_on_a_false_statement_is_rejected(group, name, index, check):
    """Outputs that do not follow from the inputs, padding included, are caught."""
    proof = _prove(3, 3, 2, True, seed=3)
    false = _false_statement(proof, group, name, index, 1)
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, prove_walk(SPEC, false))
    assert e.value.check == check


def test_a_lie_the_layer_cannot_see_is_caught_by_the_settlement(monkeypatch):
    """With V = 0 the A·Ṽ check reads final = b·α·0, so it cannot catch a false α = Â(r); the
    walk's settlement against the public A does. A cheating prover lies about α only."""
    honest = mha_prover.prove_head_product
    calls = []

    def lying(r_head, f, g, channel):
        if calls:
            return honest(r_head, f, g, channel)
        calls.append(1)
        b = head_select_table(r_head, len(f))
        sumcheck, point, finals = prove_sumcheck([b, f, g], [Product((0, 1, 2))], channel)
        alpha = finals[1] + QM31.one()
        channel.mix_felts([alpha, finals[2]])
        return HeadProductStep(sumcheck, alpha, finals[2]), point

    q, k, _ = _inputs(3, 2, 3, seed=5)
    statement = make_statement(q, k, np.zeros_like(q), 2, True, reference_softmax)
    monkeypatch.setattr(mha_prover, "prove_head_product", lying)
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, prove_walk(SPEC, statement))
    assert e.value.check == "walk.input_claim"


def test_softmax_is_not_proven():
    """The boundary: any A (h × s × s) yields a valid proof when O = A·V, whatever S_M is."""
    q, k, v = _inputs(4, 2, 3, seed=4)
    rng = np.random.default_rng(4)
    arbitrary = prove_walk(
        SPEC, make_statement(q, k, v, 2, False, lambda s_m: rng.integers(-5, 5, s_m.shape))
    )
    verify_walk(SPEC, arbitrary)


def test_bad_statements_are_refused():
    proof = _prove(3, 3, 2, True)
    st_ = proof.statement
    ins, outs = st_.inputs, st_.outputs
    bad = [
        dataclasses.replace(st_, dims=(3, 3, 2)),
        dataclasses.replace(st_, dims=(3, 3, 2, 2)),
        dataclasses.replace(st_, dims=(0, 3, 2, 1)),
        dataclasses.replace(st_, dims=(3, 2, 3, 1)),
        dataclasses.replace(st_, dims=(3, 6, 1, 1)),
        dataclasses.replace(st_, inputs={**ins, "a": ins["a"][:2]}),
        dataclasses.replace(st_, inputs={**ins, "a": np.zeros((3, 4, 4), dtype=np.int64)}),
        dataclasses.replace(st_, inputs={n: t for n, t in ins.items() if n != "v"}),
        dataclasses.replace(st_, outputs={**outs, "o": outs["o"][:3, :6]}),
        dataclasses.replace(st_, outputs={**outs, "s_m": outs["s_m"][:3, :3, :3]}),
        dataclasses.replace(st_, weights={"w": ins["q"]}),
    ]
    for statement in bad:
        with pytest.raises(VerificationError) as e:
            verify_walk(SPEC, dataclasses.replace(proof, statement=statement))
        assert e.value.check == "statement.shape"
    q, k, v = _inputs(3, 2, 3, seed=0)
    with pytest.raises(ValueError, match="heads"):
        make_statement(q, k, v, 4, True, reference_softmax)
    with pytest.raises(ValueError, match="one shape"):
        make_statement(q, k[:2], v, 2, True, reference_softmax)
    with pytest.raises(ValueError, match="softmax returned"):
        make_statement(q, k, v, 2, True, lambda s_m: s_m[:, :2])


def test_json_round_trip_verifies():
    proof = _prove(5, 3, 6, True)
    again = proof_file.from_json_dict(proof_file.to_json_dict(proof))
    assert again.layer == proof.layer
    verify_walk(SPEC, again)
