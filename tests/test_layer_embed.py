"""Token embedding: exact outputs, honest proofs, every tampered field, refused statements."""

import dataclasses

import numpy as np
import pytest

from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.embed.gather import Gather
from cairn.prover.layers.embed.model import make_statement
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import eq_table, next_pow2
from cairn.prover.pcs.params import PARAMS
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import Statement, absorb_statement, draw_output_claims
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import rejections
from tests.test_integer_soundness import forge, refusal, unchecked, wrap

SPEC = LAYERS["embed"]
# (s, V, B, P, d): one block, several blocks with a short last one (1 row), B not a power of
# two, position wider or narrower than a block, all-ones sizes.
SHAPES = [
    (1, 1, 1, 1, 1),
    (3, 11, 4, 5, 3),
    (5, 50, 50, 8, 7),
    (4, 9, 4, 64, 2),
    (7, 100, 33, 7, 5),
    (16, 17, 16, 16, 1),
]


def _tables(vocab, positions, d, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-128, 128, (vocab, d)), rng.integers(-128, 128, (positions, d))


def _statement(s, vocab, block, positions, d, seed=0, ids=None):
    word, position = _tables(vocab, positions, d, seed)
    ids = np.random.default_rng(seed + 1).integers(0, vocab, s) if ids is None else ids
    return make_statement(ids, word, position, block)


def _reference(ids, word, position):
    """Row by row from the definition: token i's word row plus position row i."""
    return np.array(
        [[word[v][c] + position[i][c] for c in range(word.shape[1])] for i, v in enumerate(ids)]
    )


def _reject(proof, check, spec=SPEC):
    with pytest.raises(VerificationError) as e:
        verify_walk(spec, proof)
    assert e.value.check == check, e.value.detail


@pytest.mark.parametrize(("s", "vocab", "block", "positions", "d"), SHAPES)
def test_output_is_exact_and_the_proof_verifies(s, vocab, block, positions, d):
    st = _statement(s, vocab, block, positions, d)
    word, position = _tables(vocab, positions, d, 0)
    ids = embed.token_ids(st.dims)
    assert np.array_equal(st.outputs["y"], _reference(ids, word, position))
    blocks = -(-vocab // block)
    assert sorted(st.weights) == sorted([*(f"word_{j}" for j in range(blocks)), "position"])
    assert np.array_equal(np.concatenate([st.weights[f"word_{j}"] for j in range(blocks)]), word)
    proof = prove_walk(SPEC, st)
    verify_walk(SPEC, proof)
    rounds = max((next_pow2(min(block, vocab)) - 1).bit_length(), (positions - 1).bit_length())
    assert len(proof.layer.sumcheck.rounds) == rounds and len(proof.layer.word) == blocks


def test_repeated_ids_and_every_block():
    ids = [3, 3, 0, 10, 3, 10, 7, 0, 3]
    st = _statement(len(ids), 11, 4, 9, 3, ids=ids)
    word, position = _tables(11, 9, 3, 0)
    assert np.array_equal(st.outputs["y"], _reference(ids, word, position))
    verify_walk(SPEC, prove_walk(SPEC, st))


def test_every_proof_field_tampered_is_rejected():
    proof = prove_walk(SPEC, _statement(5, 11, 4, 6, 3, seed=1))
    checks = rejections(SPEC, proof)
    assert {
        "embed.value_count",
        "embed.final_evaluation",
        "sumcheck.round_count",
        "sumcheck.round_degree",
        "walk.weight_claims",
        "sameply.proof",
    } <= checks.keys()


def test_a_false_output_is_rejected():
    """y with token 0 given another word row: the honest algorithm on the false statement."""
    st = _statement(4, 11, 4, 6, 3)
    y = st.outputs["y"].copy()
    y[0] = st.weights["word_0"][(embed.token_ids(st.dims)[0] + 1) % 4] + st.weights["position"][0]
    lying = dataclasses.replace(st, outputs={"y": y})
    _reject(prove_walk(SPEC, lying), "embed.final_evaluation")
    other = dataclasses.replace(st, dims=(*st.dims[:5], *reversed(embed.token_ids(st.dims))))
    _reject(dataclasses.replace(prove_walk(SPEC, st), statement=other), "embed.final_evaluation")


def test_the_layer_verifier_never_reads_y():
    """The layer step on a statement whose y is zeros gives the same claims: in a model walk y
    is hidden (only the output claim is known)."""
    st = _statement(5, 11, 4, 6, 3)
    proof = prove_walk(SPEC, st)
    claims = []
    for statement in (st, dataclasses.replace(st, outputs={"y": np.zeros_like(st.outputs["y"])})):
        channel = Poseidon252Channel()
        absorb_statement(channel, st)
        outputs = draw_output_claims(channel, st.outputs)
        claims.append(SPEC.verify(statement, proof.layer, outputs, channel))
    assert claims[0] == claims[1]


def test_selector_closed_form_matches_its_table():
    st = _statement(6, 13, 4, 8, 2, ids=[1, 12, 1, 5, 12, 0])
    gather = Gather.of(st.dims)
    rng = np.random.default_rng(3)
    token_eq = eq_table(QM31Array.random(rng, gather.row_vars).to_list())
    for t in gather.tables:
        z = QM31Array.random(rng, t.n_vars).to_list()
        table = gather.selector_table(t, token_eq)
        assert gather.selector_at(t, token_eq.to_list(), z) == (table * eq_table(z)).sum()


def test_bad_statements_are_refused():
    st = _statement(3, 11, 4, 5, 3)
    ws = st.weights
    n = len(embed.DIM_NAMES)
    shape_bad = [
        dataclasses.replace(st, dims=st.dims[:-1]),
        dataclasses.replace(st, dims=(*st.dims, 0)),
        dataclasses.replace(st, dims=(6, *st.dims[1:], 0, 0, 0)),  # s > P
        dataclasses.replace(st, dims=(3, 11, 12, 5, 3, *st.dims[n:])),  # B > V
        dataclasses.replace(st, dims=(3, 11, 0, 5, 3, *st.dims[n:])),
        dataclasses.replace(st, dims=(3, 11, 3, 5, 3, *st.dims[n:])),  # other blocks
        # 2^32 − 1 blocks of one row: refused before they are listed (never built)
        dataclasses.replace(st, dims=(3, (1 << 32) - 1, 1, 5, 3, *st.dims[n:])),
        dataclasses.replace(st, outputs={"y": st.outputs["y"][:2]}),
        dataclasses.replace(st, inputs={"x": st.outputs["y"]}),
        dataclasses.replace(st, weights={k: v for k, v in ws.items() if k != "word_2"}),
        dataclasses.replace(st, weights={**ws, "word_2": ws["word_2"][:2]}),
    ]
    proof = prove_walk(SPEC, st)
    for statement in shape_bad:
        _reject(dataclasses.replace(proof, statement=statement), "statement.shape")
    for bad in (11, 12, -1):
        ids = dataclasses.replace(st, dims=(*st.dims[:n], 0, bad, 1))
        _reject(dataclasses.replace(proof, statement=ids), "embed.ids")
    for args, message in (
        (([0, 11], *_tables(11, 5, 3, 0)), r"\[0, 11\)"),
        (([-1], *_tables(11, 5, 3, 0)), r"\[0, 11\)"),
        (([0] * 6, *_tables(11, 5, 3, 0)), "1..5"),
        (([], *_tables(11, 5, 3, 0)), "1..5"),
        (([0], np.zeros((4, 2)), np.zeros((4, 3))), "V×d"),
    ):
        with pytest.raises(ValueError, match=message):
            make_statement(*args)
    with pytest.raises(ValueError, match="block rows"):
        make_statement([0], *_tables(11, 5, 3, 0), 12)


def test_mixed_public_and_committed_blocks_are_refused():
    st = _statement(3, 11, 4, 5, 3)
    committed, _ = commit_weights(st, PARAMS["blake2s"])
    mixed = dataclasses.replace(
        committed, committed={k: v for k, v in committed.committed.items() if k != "word_1"}
    )
    with pytest.raises(VerificationError) as e:
        SPEC.check(mixed)
    assert e.value.check == "statement.shape" and "all declared or all committed" in e.value.detail


def _wrapped(word: int, position: int) -> Statement:
    """s = V = P = d = 1: y = word + position, computed mod p."""
    w, p = np.array([[word]]), np.array([[position]])
    return Statement(
        embed.KIND, (1, 1, 1, 1, 1, 0), {}, {"y": wrap(w + p)}, {"word_0": w, "position": p}
    )


@pytest.mark.parametrize(
    ("inside", "outside"), [((HALF - 5, 5), (HALF - 5, 6)), ((-HALF, 0), (-3, -HALF))]
)
def test_wrapped_statement_is_refused(inside, outside, monkeypatch):
    verify_walk(SPEC, prove_walk(SPEC, _wrapped(*inside)))
    st = _wrapped(*outside)
    proof = forge(st, monkeypatch)
    verify_walk(unchecked(embed.KIND), proof)  # a valid proof mod p: only the range check stops it
    assert "y = word[ids] + position" in refusal(SPEC, proof)


def test_relation_bounds_y_and_is_skipped_for_committed_tables():
    st = _statement(5, 11, 4, 6, 3)
    (rel,) = embed.RELATIONS
    bound = rel.bound({**st.weights}, st.dims)
    assert rel.result == "y" and np.abs(st.outputs["y"]).max() <= bound <= 254
    committed, _ = commit_weights(st, PARAMS["blake2s"])
    SPEC.check(dataclasses.replace(committed, weights={}))  # nothing to bound: mod p only
    SPEC.check(dataclasses.replace(st, unbounded=frozenset({"y"})))  # y hidden in a model walk


@pytest.mark.parametrize("hash_", ["blake2s", "poseidon"])
def test_committed_blocks_verify_and_survive_json(hash_, tmp_path):
    st = _statement(6, 21, 8, 7, 3, seed=2)
    committed, data = commit_weights(st, PARAMS[hash_])
    proof = prove_walk(SPEC, committed, data)
    assert not proof.statement.weights and set(proof.statement.committed) == set(st.weights)
    verify_walk(SPEC, proof)
    path = tmp_path / "embed.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.statement.dims == proof.statement.dims and back.layer == proof.layer
    verify_walk(SPEC, back)
    _reject(dataclasses.replace(back, opening=None), "walk.opening")


def test_json_round_trip_public(tmp_path):
    proof = prove_walk(SPEC, _statement(3, 11, 4, 5, 3))
    path = tmp_path / "embed.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.layer == proof.layer and back.statement.dims == proof.statement.dims
    verify_walk(SPEC, back)
    assert np.array_equal(back.statement.outputs["y"], proof.statement.outputs["y"])
