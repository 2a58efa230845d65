"""The model walk (prover/graph/): layers chained with hidden tensors, proven as one walk."""

import dataclasses
import functools

import numpy as np
import pytest

from cairn import examples
from cairn.prover import soundness
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.graph.prover import assemble, commit_graph_weights, prove_graph
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.graph.verifier import replay_graph, verify_graph, verify_openings
from cairn.prover.graph.views import (
    error_terms,
    mod_p_relations,
    output_bounds,
    security_bits,
    worst_cases,
)
from cairn.prover.layers.attn import model as attn
from cairn.prover.layers.gelu import model as gelu
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.qkv import model as qkv
from cairn.prover.layers.registry import LAYERS
from cairn.prover.layers.requant import model as requant
from cairn.prover.pcs.params import PARAMS, WITNESS_PCS
from cairn.prover.soundness import bits
from cairn.serializer import proof_file
from cairn.serializer.errors import MalformedProofError
from tests.proof_mutations import OTHER_HASH, check_of, graph_mutations, rejections


@functools.cache
def block(seq: int = 5, causal: bool = True):
    """x (seq × 7) → qkv → requant ×3 → attn (2 heads of 3), with its proof."""
    g, hidden = examples.attention_block_example(seq, 7, 2, 3, causal, 0)
    return g, hidden, prove_graph(g, hidden)


@pytest.mark.parametrize(("seq", "causal"), [(5, True), (4, False), (1, True)])
def test_attention_block_verifies_with_nothing_hidden_published(seq, causal):
    *_, proof = block(seq, causal)
    verify_graph(proof)
    st = proof.statement
    assert set(st.inputs) == {"x"} and set(st.outputs) == {"o"}
    assert set(st.hidden) == {"q", "k", "v", "q8", "k8", "v8"}
    assert [n.kind for n in st.nodes] == ["qkv", "requant", "requant", "requant", "attn"]
    assert mod_p_relations(st) == []  # public weights: every relation holds over the integers


def test_hidden_int8_bound_comes_from_the_requant_clamp():
    g, hidden, _ = block()
    assert max(int(np.abs(hidden[f"{j}8"]).max()) for j in "qkv") <= 127
    bounds = output_bounds(qkv.make_statement(g.inputs["x"], dict(g.weights)))
    assert all(b is not None and b.max < 1 << 30 for b in bounds.values())


def test_every_tampering_is_rejected_by_a_named_check():
    _, _, proof = block()
    hit = rejections(None, proof, graph_mutations)
    assert {"sameply.final_evaluation", "walk.witness_opening"} <= set(hit), hit
    assert any(c.startswith(("pcs.", "merkle.")) for c in hit), hit


@pytest.mark.parametrize(
    ("kind", "dim", "check"), [("attn", 6, "softmax.params"), ("requant", 3, "requant.params")]
)
def test_a_huge_shift_is_refused_by_its_check(kind, dim, check):
    """A shift in dims (attn's θ, requant's k) is any u32 in the statement; the output bounds
    are read before the kinds' checks, which then refuse it by name (requant's used to derive
    a negative A whose message raised a traceback)."""
    *_, proof = block()
    g = proof.statement
    at = next(i for i, n in enumerate(g.nodes) if n.kind == kind)
    nodes = list(g.nodes)
    nodes[at] = dataclasses.replace(
        nodes[at], dims=(*nodes[at].dims[:dim], (1 << 32) - 1, *nodes[at].dims[dim + 1 :])
    )
    forged = dataclasses.replace(proof, statement=dataclasses.replace(g, nodes=tuple(nodes)))
    with pytest.raises(VerificationError) as e:
        verify_graph(forged)
    assert e.value.check == check


@pytest.mark.parametrize(
    ("relation", "dim"),
    [
        (attn.RELATIONS[0], 6),
        (requant.RELATIONS[0], 3),
        (requant.RELATIONS[1], 4),
        (gelu.RELATIONS[0], 5),
    ],
)
def test_a_bound_over_a_huge_shift_stays_small_and_beyond_p(relation, dim):
    """2^(2^32 − 1) would be half a gigabyte: the bound caps the shift (`ranges.pow2`) and
    still exceeds (p−1)/2, so the verdicts are those of the uncapped bound."""
    dims = [1] * 9
    dims[dim] = (1 << 32) - 1
    ones = np.ones((2, 2), dtype=np.int64)
    bound = relation.bound({"v": ones, "x": ones}, dims)
    assert HALF < bound < 1 << 128


def test_a_hidden_tensor_that_is_not_its_producers_output_is_rejected():
    """The prover feeds attention a q8 that requant did not produce (one entry off by one)."""
    g, hidden, _ = block()
    forged = dict(hidden)
    forged["q8"] = hidden["q8"].copy()
    forged["q8"][0, 0] += 1 if forged["q8"][0, 0] < 127 else -1
    with pytest.raises(VerificationError):
        verify_graph(prove_graph(g, forged))


def test_a_tensor_read_twice_has_its_claims_merged():
    """attn reads q8 as both q and k (two claims on one hidden tensor, one same-poly merge),
    and qkv's k is a public output of the graph, produced mid-way."""
    g, hidden, _ = block()
    (projected, _), req_q, _, req_v = _layers(g, hidden)
    q8, v8 = hidden["q8"], hidden["v8"]
    twice = attn.make_statement(q8, q8, v8, 2, True, examples.default_gamma(3))
    layers = [(projected, {}), req_q, req_v, (twice, {"q": "q8", "k": "q8", "v": "v8"})]
    g2, hidden2 = assemble(layers, ["o", "k"])
    proof = prove_graph(g2, hidden2)
    verify_graph(proof)
    assert proof.nodes[1].outputs["y"] is not None  # q8's two claims were merged
    assert "k" in proof.statement.outputs and "k" not in proof.statement.hidden


def _layers(g: GraphStatement, hidden):
    """The block's layer statements again, with their renamings."""
    x, weights = g.inputs["x"], dict(g.weights)
    projected = qkv.make_statement(x, weights)
    out = [(projected, {})]
    for node in g.nodes[1:4]:
        j = node.inputs["x"]
        _, _, m, k, b, a, _ = node.dims
        out.append((requant.make_statement(hidden[j], m, k, b, a), {"x": j, "y": f"{j}8"}))
    return out


def _refusal(g: GraphStatement, hidden) -> str | None:
    try:
        prove_graph(g, hidden)
    except VerificationError as e:
        return e.check
    return None


def test_structure_errors_are_named():
    g, _, proof = block()
    nodes = g.nodes
    cases = {
        "reversed": dataclasses.replace(g, nodes=nodes[::-1]),
        "unknown kind": dataclasses.replace(
            g, nodes=(dataclasses.replace(nodes[0], kind="nope"), *nodes[1:])
        ),
        "unread tensor": dataclasses.replace(g, nodes=nodes[:-1], outputs={}),
        "hidden shape missing": dataclasses.replace(
            g, hidden={n: s for n, s in g.hidden.items() if n != "q8"}
        ),
        "long name": dataclasses.replace(g, inputs={"x" * 32: g.inputs["x"]}),
        "unread weight": dataclasses.replace(g, weights={**g.weights, "extra": np.ones(2)}),
        "no nodes": dataclasses.replace(g, nodes=()),
    }
    for name, bad in cases.items():
        assert check_of(None, dataclasses.replace(proof, statement=bad)) == "graph.shape", name


def test_hidden_shape_must_fit_the_layer():
    _, _, proof = block()
    st = proof.statement
    bad = dataclasses.replace(st, hidden={**st.hidden, "q8": (5, 7)})
    assert check_of(None, dataclasses.replace(proof, statement=bad)) == "statement.shape"


def test_a_requant_whose_input_bits_miss_the_producers_bound_is_refused():
    """a = bits of the *actual* max|q| is too few: the verifier only knows q's bound."""
    g, hidden, proof = block()
    node = g.nodes[1]
    actual = int(np.abs(hidden[node.inputs["x"]]).max()).bit_length()
    assert actual < node.dims[5]
    small = dataclasses.replace(node, dims=(*node.dims[:5], actual, node.dims[6]))
    g2 = dataclasses.replace(g, nodes=(g.nodes[0], small, *g.nodes[2:]))
    assert _refusal(g2, hidden) == "statement.range"
    bad = dataclasses.replace(proof.statement, nodes=g2.nodes)
    assert check_of(None, dataclasses.replace(proof, statement=bad)) in {
        "statement.range",
        "requant.commitment",
    }


def test_committed_weights_make_the_projections_mod_p_only():
    g, hidden, _ = block()
    committed, data = commit_graph_weights(g, PARAMS["blake2s"])
    proof = prove_graph(committed, hidden, data)
    verify_graph(proof)
    assert not proof.statement.weights
    relations = mod_p_relations(proof.statement)
    assert any(r.startswith("node 0 (qkv)") for r in relations)
    assert any(r.startswith("node 1 (requant): x·M") for r in relations)
    assert not any("(attn)" in r for r in relations)  # v8 is bounded by the clamp whatever q is


def test_json_round_trip(tmp_path):
    _, _, proof = block()
    path = tmp_path / "block.proof.json"
    proof_file.save(proof, path)
    again = proof_file.load(path)
    verify_graph(again)
    assert proof_file.to_json_dict(again) == proof_file.to_json_dict(proof)


@pytest.mark.parametrize(
    ("where", "value", "path"),
    [
        (("statement", "nodes", 0, "kind"), "nope", "statement.nodes[0].kind"),
        (("statement", "nodes", 1, "inputs"), {"x": 3}, "statement.nodes[1].inputs.x"),
        (("statement", "hidden", "q8"), [5, 0], "statement.hidden.q8[1]"),
        (("proof", "nodes"), [], "proof.nodes"),
    ],
)
def test_malformed_files_name_the_field(where, value, path):
    _, _, proof = block()
    doc = proof_file.to_json_dict(proof)
    target = doc
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with pytest.raises(MalformedProofError) as err:
        proof_file.from_json_dict(doc)
    assert err.value.field == path


def test_soundness_is_the_union_bound_over_the_nodes(monkeypatch):
    """Each layer alone clears a target the graph, summing their errors, misses."""
    g, hidden, proof = block()
    total = security_bits(proof.statement)
    alone = [
        bits(LAYERS[st.kind].error_terms(st))
        for st in worst_cases(proof.statement)
        if LAYERS[st.kind].error_terms
    ]
    assert 96 < total < min(alone) - 0.5
    monkeypatch.setattr(soundness, "TARGET_BITS", total + 0.1)
    assert check_of(None, proof) == "graph.params"
    assert _refusal(g, hidden) == "graph.params"


def test_a_layernorm_output_reaches_a_matmul_by_its_row_norm():
    """LayerNorm's rows have a bound on their Euclidean norm from its public statistics, so
    the product with W is bounded by Cauchy–Schwarz where Hölder (every entry at its bound
    times a column's L1 norm) would exceed (p−1)/2."""
    rng = np.random.default_rng(5)
    norm = examples.layernorm_example(4, 64, 0)
    w = rng.choice([-1023, 1023], (64, 8))
    projected = linear.make_statement(norm.outputs["y"], {"w": w, "b": np.zeros(8, np.int64)})
    layers = [(norm, {"y": "x"}), (projected, {"x": "x", "y": "out"})]
    g, hidden = assemble(layers, ["s1", "s2", "out"])
    proof = prove_graph(g, hidden)
    verify_graph(proof)
    assert mod_p_relations(proof.statement) == []
    (x_bound,) = (b for b in output_bounds(norm).values() if b and b.row_sq)
    with_norm = output_bounds(projected, {"x": x_bound})["y"]
    holder = output_bounds(projected, {"x": dataclasses.replace(x_bound, row_sq=None)})["y"]
    assert with_norm.max <= HALF < holder.max
    rows = (norm.outputs["y"].astype(object) ** 2).sum(axis=1)
    assert max(rows) <= x_bound.row_sq  # the declared norm holds for the real rows
    hidden_stats, _ = assemble(layers, ["out"])  # the verifier reads s1, s2: never hidden
    bad = dataclasses.replace(proof, statement=hidden_stats)
    assert check_of(None, bad) == "graph.shape"


def test_one_witness_opening_settles_every_node():
    """Every node's stacks (by node and name: requant.0 three times) and the exp table, once,
    in one opening; its one term has the largest stack and every node's claims."""
    _, _, proof = block()
    st = proof.statement
    stacks = [c for node in st.nodes for c in node.witness.values()]
    assert len(stacks) == 4 and proof.witness_opening is not None
    assert len(proof.witness_opening.poly_openings) == len(stacks) + 1  # + the exp table
    claims = sum(LAYERS[node.kind].opening_claims for node in st.nodes)
    largest = max(16, *(c.n_vars for c in stacks))  # the exp table has 2^16 values
    terms = error_terms(st, worst_cases(st))
    assert [name for name in terms if "opening" in name] == ["witness opening"]
    for params in WITNESS_PCS.values():  # the hash changes no count
        assert terms["witness opening"] == 2.0 ** -params.security_bits(largest, claims)


def test_a_node_must_leave_claims_on_exactly_its_witness(monkeypatch):
    _, _, proof = block()
    spec = LAYERS["requant"]

    def verify_without_witness(st, layer, outputs, channel):
        return dataclasses.replace(spec.verify(st, layer, outputs, channel), witness={})

    monkeypatch.setitem(LAYERS, "requant", dataclasses.replace(spec, verify=verify_without_witness))
    assert check_of(None, proof) == "graph.claims"


@pytest.mark.parametrize("hash_", sorted(WITNESS_PCS))
def test_the_witness_is_on_the_trees_the_prover_picks(hash_):
    """Every node's witness stacks and the exp table's pinned commitment are on the hash the
    prover picks, which the verifier reads off the commitments (docs/pcs.md, "Which tree
    hash"); one node's stacks restated on the other hash change the transcript and are
    refused."""
    g, hidden, _ = block()
    proof = prove_graph(g, hidden, witness_hash=hash_)
    verify_graph(proof)
    nodes = proof.statement.nodes
    assert {c.hash for node in nodes for c in node.witness.values()} == {hash_}
    other = OTHER_HASH[hash_]
    i = next(i for i, node in enumerate(nodes) if node.witness)
    restated = {
        n: dataclasses.replace(c, hash=other, root=c.root >> 8) for n, c in nodes[i].witness.items()
    }
    tampered = [*nodes[:i], dataclasses.replace(nodes[i], witness=restated), *nodes[i + 1 :]]
    statement = dataclasses.replace(proof.statement, nodes=tuple(tampered))
    with pytest.raises(VerificationError) as e:
        verify_graph(dataclasses.replace(proof, statement=statement))
    assert e.value.check == "mha.unpad"  # the attn node, walked first, on changed challenges


def test_a_witness_opening_over_two_hashes_is_refused():
    """Polynomials of both hashes in the one witness opening (which no prover here makes: it
    commits every witness with one) are `pcs.hash` before the opening is read, as the Cairo
    graph class refuses them while it lists them (`witness_polys`)."""
    *_, proof = block()
    channel, committed, witness = replay_graph(proof)
    last, claims = witness[-1]
    mixed = [*witness[:-1], (dataclasses.replace(last, hash=OTHER_HASH[last.hash]), claims)]
    with pytest.raises(VerificationError) as e:
        verify_openings(proof.statement, None, None, channel, committed, mixed)
    assert e.value.check == "pcs.hash"
