"""QKV decoding with a KV cache: exact caches, chained step proofs, tampering caught."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.layers.kvcache import model
from cairn.prover.layers.kvcache.proof import DecodeProof
from cairn.prover.layers.kvcache.prover import prove_decode
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import eq_table, hypercube_point
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer.codec import decode, encode
from tests.proof_mutations import check_of, rejections
from tests.test_layer_qkv import random_weights

SPEC = LAYERS["qkv-decode"]


def run(steps, context, e, h, s0, seed=0):
    """A random decode run: new rows x, the prefill's K and V (s0 rows), weights."""
    rng = np.random.default_rng(seed)
    weights = random_weights(rng, e, h)
    prefill = {j: rng.integers(-128, 128, (s0, h)) for j in "kv"}
    return rng.integers(-128, 128, (steps, e)), prefill, context, weights


def statement(*shape, seed=0):
    return model.make_statement(*run(*shape, seed=seed))


def reference(x, prefill, context, weights):
    """Step by step with int64 loops: q_t, and the caches with row s0 + t − 1 appended."""
    s0, h = prefill["k"].shape
    caches = {j: np.zeros((context, h), dtype=np.int64) for j in "kv"}
    for j in "kv":
        caches[j][:s0] = prefill[j]
    q, history = [], {"k": [], "v": []}
    for t, row in enumerate(x):
        new = {
            j: [
                sum(int(row[i]) * int(weights[f"w_{j}"][i, c]) for i in range(len(row)))
                + int(weights[f"b_{j}"][c])
                for c in range(h)
            ]
            for j in "qkv"
        }
        q.append(new["q"])
        for j in "kv":
            caches[j] = caches[j].copy()
            caches[j][s0 + t] = new[j]
            history[j].append(caches[j])
    return {"q": np.array(q), "k": np.array(history["k"]), "v": np.array(history["v"])}


# (T, l, e, h, s0): tiny, non-powers of two, an empty prefill, the last row of the context.
SHAPES = [
    (1, 1, 1, 1, 0),
    (1, 2, 1, 1, 1),
    (2, 3, 2, 3, 1),
    (3, 5, 3, 2, 2),
    (2, 4, 4, 4, 0),
    (4, 7, 5, 3, 3),
    (3, 16, 6, 5, 9),
    (5, 9, 3, 6, 4),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_outputs_equal_reference(shape):
    args = run(*shape)
    st_ = model.make_statement(*args)
    want = reference(*args)
    for name in ("q", "k", "v"):
        assert st_.outputs[name].dtype == np.int64
        np.testing.assert_array_equal(st_.outputs[name], want[name])
    np.testing.assert_array_equal(st_.inputs["k0"][: shape[4]], args[1]["k"])


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_chains_verify(shape):
    proof = prove_walk(SPEC, statement(*shape))
    steps = proof.layer.steps
    assert len(steps) == shape[0]
    assert steps[-1].k_merge is None and steps[-1].v_merge is None
    assert all(s.k_merge is not None and s.v_merge is not None for s in steps[:-1])
    verify_walk(SPEC, proof)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 4), st.integers(0, 5), st.integers(0, 3), st.data())
def test_random_runs_verify(steps, s0, slack, data):
    e, h = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    shape = (steps, s0 + steps + slack, e, h, s0)
    verify_walk(SPEC, prove_walk(SPEC, statement(*shape, seed=data.draw(st.integers(0, 99)))))


def test_hypercube_point_is_one_hot():
    for n in range(4):
        for i in range(1 << n):
            onehot = [QM31.from_int(int(k == i)) for k in range(1 << n)]
            assert eq_table(hypercube_point(i, n)).to_list() == onehot


def test_every_tampering_is_rejected():
    """Every QM31 of every step's proof and of the settlements, every count, every optional."""
    proof = prove_walk(SPEC, statement(3, 5, 2, 2, 1, seed=3))
    hit = rejections(SPEC, proof)
    assert {
        "kvcache.step_count",
        "kvcache.output_split",
        "kvcache.concat",
        "kvcache.concat_final",
        "qkv.value_count",
        "qkv.final_evaluation",
        "sameply.proof",
        "sameply.final_evaluation",
        "sumcheck.round_count",
        "sumcheck.round_degree",
    } <= set(hit)


def _bump(v):
    return v + QM31.one()


def _with_step(proof, t, **changes):
    steps = list(proof.layer.steps)
    steps[t] = dataclasses.replace(steps[t], **changes)
    return dataclasses.replace(proof, layer=dataclasses.replace(proof.layer, steps=steps))


def _with_concat(proof, t, **changes):
    return _with_step(proof, t, concat=dataclasses.replace(proof.layer.steps[t].concat, **changes))


@pytest.fixture(scope="module")
def chain():
    return prove_walk(SPEC, statement(4, 6, 3, 3, 1, seed=7))


@pytest.mark.parametrize("t", range(4))
def test_each_steps_claims_are_bound(chain, t):
    c = chain.layer.steps[t].concat
    for name in ("k_prev", "k_new", "v_prev", "v_new"):
        assert check_of(SPEC, _with_concat(chain, t, **{name: _bump(getattr(c, name))})) == (
            "kvcache.concat"
        )
    # Moving value between K_prev and k̃ keeps the sum; the pad sum-check catches it.
    moved = _with_concat(chain, t, k_prev=_bump(c.k_prev), k_new=c.k_new - QM31.one())
    assert check_of(SPEC, moved) == "kvcache.concat_final"
    for name in ("k_value", "v_value"):
        tampered = _with_concat(chain, t, **{name: _bump(getattr(c, name))})
        assert check_of(SPEC, tampered) == "kvcache.concat_final"
    proj = chain.layer.steps[t].projection
    tampered = _with_step(chain, t, projection=dataclasses.replace(proj, x=[_bump(proj.x[0])]))
    assert check_of(SPEC, tampered) == "qkv.final_evaluation"


@pytest.mark.parametrize("t", range(3))
def test_merges_are_required_and_checked(chain, t):
    assert check_of(SPEC, _with_step(chain, t, k_merge=None)) == "sameply.proof"
    merge = chain.layer.steps[t].v_merge
    tampered = _with_step(chain, t, v_merge=dataclasses.replace(merge, value=_bump(merge.value)))
    assert check_of(SPEC, tampered) == "sameply.final_evaluation"


def test_last_step_takes_no_merge(chain):
    stale = _with_step(chain, 3, k_merge=chain.layer.steps[2].k_merge)
    assert check_of(SPEC, stale) == "sameply.proof"


@pytest.mark.parametrize("field", ["q_steps", "k_steps", "v_steps", "steps"])
def test_step_count(chain, field):
    values = getattr(chain.layer, field)
    for wrong in (values[:-1], [*values, values[0]]):
        layer = dataclasses.replace(chain.layer, **{field: wrong})
        assert check_of(SPEC, dataclasses.replace(chain, layer=layer)) == "kvcache.step_count"


@pytest.mark.parametrize("field", ["q_steps", "k_steps", "v_steps"])
def test_output_split(chain, field):
    values = list(getattr(chain.layer, field))
    values[1] = _bump(values[1])
    layer = dataclasses.replace(chain.layer, **{field: values})
    assert check_of(SPEC, dataclasses.replace(chain, layer=layer)) == "kvcache.output_split"


def test_reordered_steps_rejected(chain):
    steps = list(chain.layer.steps)
    steps[1], steps[2] = steps[2], steps[1]
    layer = dataclasses.replace(chain.layer, steps=steps)
    assert check_of(SPEC, dataclasses.replace(chain, layer=layer)) is not None


def _forge(st_, name, t, row, delta=1):
    """Add delta to row `row` of cache `name` after step t (1-based) and every later step."""
    caches = st_.outputs[name].copy()
    caches[t - 1 :, row] += delta
    return dataclasses.replace(st_, outputs={**st_.outputs, name: caches})


def test_forged_old_row_is_caught_by_the_concatenation():
    """K_2 keeps a prefill row changed (and so do the later caches, consistently): step 2's
    claims on K_1 disagree with what step 3 appended to."""
    honest = statement(4, 6, 3, 3, 1, seed=7)
    forged = _forge(honest, "k", 2, 0)
    model.check(forged)
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "kvcache.concat"
    carried = dataclasses.replace(prove_walk(SPEC, honest), statement=forged)
    assert check_of(SPEC, carried) is not None


def test_forged_new_row_is_caught_by_the_projection():
    """Step 2 appends a k_2 that is not x_2·W_k + B_k: the concatenation holds, the QKV does not."""
    honest = statement(4, 6, 3, 3, 1, seed=7)
    forged = _forge(honest, "v", 2, 2)  # row s0 + 2 − 1
    model.check(forged)
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "qkv.final_evaluation"


def test_claims_on_the_initial_cache_meet_the_public_one():
    """A prover that runs on the true K_0 while the statement shows another is caught by the
    walk's evaluation of the public initial cache."""
    honest = statement(2, 4, 2, 2, 2, seed=1)
    k0 = honest.inputs["k0"].copy()
    k0[1, 0] += 5
    forged = dataclasses.replace(honest, inputs={**honest.inputs, "k0": k0})

    def lying_prove(st_, outputs, channel, advice):
        return prove_decode(dataclasses.replace(st_, inputs=honest.inputs), outputs, channel)

    liar = dataclasses.replace(SPEC, prove=lying_prove)
    assert check_of(SPEC, prove_walk(liar, forged)) == "walk.input_claim"
    assert check_of(SPEC, prove_walk(SPEC, forged)) == "kvcache.concat"


def _bad_statements():
    st_ = statement(2, 5, 3, 2, 2)
    ins, outs = st_.inputs, st_.outputs
    k0 = ins["k0"].copy()
    k0[2, 1] = 1  # a row beyond s0 = 2
    v_late = outs["v"].copy()
    v_late[0, 3, 0] = 1  # step 1 has filled rows 0..2 only
    return {
        "dims count": dataclasses.replace(st_, dims=(2, 5, 3, 2)),
        "no steps": dataclasses.replace(st_, dims=(0, 5, 3, 2, 2)),
        "negative s0": dataclasses.replace(st_, dims=(2, 5, 3, 2, -1)),
        "pos = l": dataclasses.replace(st_, dims=(2, 3, 3, 2, 2)),
        "pos > l": dataclasses.replace(st_, dims=(2, 5, 3, 2, 4)),
        "x shape": dataclasses.replace(st_, inputs={**ins, "x": ins["x"][:1]}),
        "cache rows": dataclasses.replace(st_, inputs={**ins, "v0": ins["v0"][:4]}),
        "k0 beyond s0": dataclasses.replace(st_, inputs={**ins, "k0": k0}),
        "output beyond length": dataclasses.replace(st_, outputs={**outs, "v": v_late}),
        "caches per step": dataclasses.replace(st_, outputs={**outs, "k": outs["k"][1]}),
        "q shape": dataclasses.replace(st_, outputs={**outs, "q": outs["q"][:, :1]}),
        "bias shape": dataclasses.replace(st_, weights={**st_.weights, "b_k": outs["q"]}),
    }


@pytest.mark.parametrize("case", list(_bad_statements()))
def test_bad_statements_refused(case):
    honest = prove_walk(SPEC, statement(2, 5, 3, 2, 2))
    bad = _bad_statements()[case]
    with pytest.raises(VerificationError, match="statement.shape"):
        verify_walk(SPEC, dataclasses.replace(honest, statement=bad))
    with pytest.raises(VerificationError, match="statement.shape"):
        prove_walk(SPEC, bad)


def test_make_statement_refuses_a_full_context():
    x, prefill, _, weights = run(3, 5, 2, 2, 3)
    with pytest.raises(ValueError):
        model.make_statement(x, prefill, 5, weights)
    model.make_statement(x, prefill, 6, weights)


def test_proof_round_trips_through_the_codec(chain):
    assert decode(encode(chain.layer), DecodeProof, "proof") == chain.layer
