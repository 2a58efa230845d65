"""Declared ranges of weights proven by lookups (kind range): honest proofs with whole and split
weights, every field tampered, the statement checks, cheating provers, and what a model walk
gains: the relations reading a committed weight are checked at its declared bound
(docs/layers/range.md)."""

import dataclasses

import numpy as np
import pytest

from cairn import examples
from cairn.prover.errors import VerificationError
from cairn.prover.graph.prover import assemble, commit_graph_weights, prove_graph
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import declared_ranges, mod_p_relations
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.range import prover as range_prover
from cairn.prover.layers.range import relations
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.verifier import verify_walk
from tests.proof_mutations import check_of, rejections, sampled_layer_mutations, witness_tamperings

SPEC = LAYERS["range"]


def statement(rows, cols, bits, seed=0):
    """W (rows × cols) over all of `bits` signed bits, both extremes included; a 22-bit bias
    (two limbs); a 3-D tensor of 1 bit (−1 and 0)."""
    rng = np.random.default_rng(seed)
    half = 1 << (bits - 1)
    w = rng.integers(-half, half, (rows, cols), dtype=np.int64)
    w.flat[0], w.flat[-1] = -half, half - 1
    b = rng.integers(-(1 << 21), 1 << 21, cols, dtype=np.int64)
    b[0] = (1 << 21) - 1
    t = -rng.integers(0, 2, (2, 3, 2), dtype=np.int64)
    return range_check.make_statement([w, b, t], [bits, 22, 1])


SHAPES = [(3, 5, 7), (2, 9, 20), (1, 1, 1)]


@pytest.fixture(scope="module")
def proofs():
    out = {}
    for shape in SHAPES:
        st, data = commit_weights(statement(*shape, seed=sum(shape)), POSEIDON_PARAMS)
        out[shape] = prove_walk(SPEC, st, data)
    return out


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify(proofs, shape):
    verify_walk(SPEC, proofs[shape])


def test_public_weights_verify_too():
    verify_walk(SPEC, prove_walk(SPEC, statement(2, 3, 5)))


def test_the_example_is_a_minilm_projection():
    st = examples.range_example(3, 4, 12, seed=1)
    assert st.dims == (12, 2, 3, 4, 22, 1, 4)


def test_every_field_tampered_is_rejected_by_a_named_check(proofs):
    checks = rejections(SPEC, proofs[SHAPES[1]], sampled_layer_mutations)
    assert {"gkr.layer", "gkr.mask_count"} <= set(checks)
    assert any(c.startswith(("pcs.", "merkle.")) for c in checks)
    assert "walk.witness_opening" in checks


def test_the_witness_commitment_is_checked(proofs):
    for tampered in witness_tamperings(proofs[SHAPES[0]], "range"):
        assert check_of(SPEC, tampered) == "range.commitment"


def _with_dims(proof, dims):
    st = dataclasses.replace(proof.statement, dims=tuple(dims))
    return dataclasses.replace(proof, statement=st)


@pytest.mark.parametrize(
    ("dims", "check"),
    [
        ((), "statement.shape"),
        ((7, 2, 3), "statement.shape"),  # a shape cut short
        ((7, 0, 3, 5), "statement.shape"),  # rank 0
        ((7, 5, 1, 1, 1, 1, 1), "statement.shape"),  # rank beyond 4
        ((7, 2, 3, 0), "statement.shape"),
        ((0, 2, 3, 5), "range.params"),
        ((31, 2, 3, 5), "range.params"),
        ((7, 2, 5, 3, 22, 1, 5, 1, 3, 2, 3, 2), "statement.shape"),  # W transposed
        ((7, 2, 3, 5, 22, 1, 5, 1, 3, 2, 3, 2, 7, 1, 1), "statement.shape"),  # a 4th weight
    ],
)
def test_statement_dims_are_checked(proofs, dims, check):
    assert check_of(SPEC, _with_dims(proofs[SHAPES[0]], dims)) == check


def test_a_declared_width_other_than_the_proven_one_is_refused(proofs):
    dims = list(proofs[SHAPES[0]].statement.dims)
    dims[0] += 1  # 8 bits claimed for the 7 the lookups were made for
    assert check_of(SPEC, _with_dims(proofs[SHAPES[0]], dims)) is not None


def test_at_most_32_weights():
    with pytest.raises(ValueError, match="1 to 32 weights"):
        range_check.make_statement([np.zeros(2, dtype=np.int64)] * 33)


def test_the_prover_refuses_a_weight_beyond_its_bits():
    with pytest.raises(ValueError, match="beyond 4 signed bits"):
        range_check.make_statement([np.array([8])], [4])
    with pytest.raises(ValueError, match="beyond 4 signed bits"):
        range_check.make_statement([np.array([-9])], [4])
    assert range_check.bits_of(np.array([-8, 7])) == 4
    assert range_check.bits_of(np.array([0])) == 1


# -- cheating provers --------------------------------------------------------------------------


def _cheat(weights, bits):
    """A statement declaring `bits` for weights that may not fit them, proven anyway."""
    dims = []
    for w, b in zip(weights, bits, strict=True):
        dims += [b, w.ndim, *w.shape]
    names = {relations.weight_name(i): w for i, w in enumerate(weights)}
    st, data = commit_weights(Statement("range", tuple(dims), {}, {}, names), POSEIDON_PARAMS)
    return check_of(SPEC, prove_walk(SPEC, st, data))


@pytest.mark.parametrize("beyond", [8, -9, 1 << 20, -(1 << 30) + 1])
def test_a_whole_weight_beyond_its_bits_fails_the_lookup(beyond):
    w = np.array([[1, 2, beyond], [0, -8, 7]])
    assert _cheat([w], [4]) == "logup.balance"


@pytest.mark.parametrize("beyond", [1 << 21, -(1 << 21) - 1, 1 << 29])
def test_a_split_weight_beyond_its_bits_fails_the_lookup(beyond):
    assert _cheat([np.array([5, beyond, -3])], [22]) == "logup.balance"


def test_a_table_in_another_order_is_refused(monkeypatch):
    """The prover's tables with their rows (and multiplicities) reversed: the lookups balance,
    but a table's leaf is not the index MLE of [0, 2^c)."""
    real = relations.fractions

    def reversed_tables(layout, alphas, keys, counts):
        out = real(layout, alphas, keys, counts)
        for j in range(len(layout.widths)):
            f = out[len(layout.columns) + j]
            out[len(layout.columns) + j] = dataclasses.replace(
                f, numerators=f.numerators[::-1], denominators=f.denominators[::-1]
            )
        return out

    def unchecked_claims(layout, alphas, leaves):
        with monkeypatch.context() as m:  # the cheat's own claims, the table check skipped
            m.setattr(relations, "index_mle", lambda point: alphas[len(point)] - leaf_of(point))
            return real_claims(layout, alphas, leaves)

    real_claims = relations.leaf_claims
    st, data = commit_weights(statement(2, 3, 5), POSEIDON_PARAMS)
    monkeypatch.setattr(range_prover, "fractions", reversed_tables)
    leaves: dict = {}

    def leaf_of(point):
        return leaves[tuple(point)]

    real_logup = range_prover.prove_logup

    def recording_logup(instances, channel):
        made, out = real_logup(instances, channel)
        leaves.update({tuple(leaf.point): leaf.denominator for leaf in out})
        return made, out

    monkeypatch.setattr(range_prover, "prove_logup", recording_logup)
    monkeypatch.setattr(range_prover, "leaf_claims", unchecked_claims)
    assert check_of(SPEC, prove_walk(SPEC, st, data)) == "range.table"


# -- in a model walk ---------------------------------------------------------------------------


def _linear_graph(declared_bits=None, x_bound=100):
    rng = np.random.default_rng(1)
    x = rng.integers(-x_bound, x_bound, (4, 6))
    w = rng.integers(-2048, 2048, (6, 5))
    b = rng.integers(-(1 << 20), 1 << 20, (5,))
    layers = [(linear.make_statement(x, {"w": w, "b": b}), {})]
    if declared_bits is not None:
        st = range_check.make_statement([w, b], declared_bits)
        layers.insert(0, (st, {"w00": "w", "w01": "b"}))
    g, hidden = assemble(layers, ["y"])
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    return g, hidden, data


def test_a_range_node_makes_the_relations_on_committed_weights_hold_over_the_integers():
    g, hidden, data = _linear_graph([12, 21])
    assert declared_ranges(g) == {"w": 12, "b": 21}
    proof = prove_graph(g, hidden, data)
    verify_graph(proof)
    assert mod_p_relations(proof.statement) == []
    g, hidden, data = _linear_graph()
    proof = prove_graph(g, hidden, data)
    assert mod_p_relations(proof.statement) == ["node 0 (linear): x·w + b"]


def test_the_declared_bound_is_what_the_relations_are_checked_at():
    """Declared 30 bits, W is read at 2^29 everywhere: x·W can wrap, so the graph is refused."""
    g, hidden, data = _linear_graph([30, 21])
    with pytest.raises(VerificationError) as e:
        prove_graph(g, hidden, data)
    assert e.value.check == "statement.range"


def test_a_layer_walk_declaring_ranges_is_refused(proofs):
    proof = proofs[SHAPES[0]]
    st = dataclasses.replace(proof.statement, ranged=frozenset({"w00"}))
    assert check_of(SPEC, dataclasses.replace(proof, statement=st)) == "statement.shape"


def test_a_declared_weights_claim_tampered_in_a_model_walk_is_rejected():
    g, hidden, data = _linear_graph([12, 21])
    proof = prove_graph(g, hidden, data)
    layer = proof.nodes[0].layer.logup
    sumcheck = layer.layers[-1].sumcheck
    rounds = [list(r) for r in sumcheck.rounds]
    rounds[0][0] = rounds[0][0] + relations.QM31.one()
    tampered_layer = dataclasses.replace(
        layer.layers[-1], sumcheck=dataclasses.replace(sumcheck, rounds=rounds)
    )
    logup = dataclasses.replace(layer, layers=[*layer.layers[:-1], tampered_layer])
    node = dataclasses.replace(
        proof.nodes[0], layer=dataclasses.replace(proof.nodes[0].layer, logup=logup)
    )
    assert check_of(None, dataclasses.replace(proof, nodes=[node, *proof.nodes[1:]])) == "gkr.layer"


@pytest.mark.parametrize("declared", [("word_0", "position"), ("word_0", "word_1", "position")])
def test_an_embedding_tables_blocks_are_declared_all_or_none(declared):
    """Embed's relation reads word_0 for every block: declared alone, it is refused by name."""
    from tests.test_layer_embed import _statement

    st = _statement(5, 7, 4, 6, 3, ids=[6, 0, 1, 5, 2])  # both blocks looked up
    names = {local: f"embed.{local}" for local in st.weights} | {"y": "embed.y"}
    ranged = range_check.make_statement([st.weights[n] for n in declared])
    wiring = {relations.weight_name(i): f"embed.{n}" for i, n in enumerate(declared)}
    g, hidden = assemble([(ranged, wiring), (st, names)], ["embed.y"])
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    if len(declared) == 2:
        with pytest.raises(VerificationError, match="all declared") as e:
            prove_graph(g, hidden, data)
        assert e.value.check == "statement.shape"
    else:
        proof = prove_graph(g, hidden, data)
        verify_graph(proof)
        assert mod_p_relations(proof.statement) == []
