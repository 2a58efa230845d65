"""A model walk with its inputs and outputs committed (docs/model-walk.md, "Committed inputs
and outputs"): the statement holds roots where it held activations, a committed output's value
enters the transcript after its point and is opened with the weights, a committed input's
claims join the same opening; the structure, the transcript, the soundness count, the file,
the calldata and the CLI know them."""

import dataclasses
import functools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn import examples
from cairn.cli import app
from cairn.prover.errors import VerificationError
from cairn.prover.graph.prover import (
    assemble,
    commit_graph_io,
    commit_graph_weights,
    prove_graph,
)
from cairn.prover.graph.statement import GraphStatement, Node
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import error_terms, mod_p_relations, worst_cases
from cairn.prover.layers.pool import model as pool
from cairn.prover.pcs.params import BLAKE2S_PARAMS, POSEIDON_PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.serializer import calldata, proof_file
from cairn.serializer.graph_calldata import decode_graph, encode_graph, replay_graph_calldata
from tests.graph_examples import graph_proof
from tests.proof_mutations import check_of, graph_mutations, rejections

runner = CliRunner()


@functools.cache
def block():
    """x (5 × 7) → qkv → requant ×3 → attn (2 heads of 3), weights, x and o committed."""
    g, hidden = examples.attention_block_example(5, 7, 2, 3, True, 0)
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    g, hidden, io_data = commit_graph_io(g, hidden, POSEIDON_PARAMS)
    return g, hidden, prove_graph(g, hidden, data | io_data)


def test_the_statement_holds_roots_where_it_held_activations():
    *_, proof = block()
    verify_graph(proof)
    g = proof.statement
    assert g.inputs == {} and g.outputs == {}
    assert g.input_names() == {"x"} and g.output_names() == {"o"}
    assert set(g.io()) == {"x", "o"} and set(proof.outputs) == {"o"}
    assert g.weight_names() == {"w_q", "w_k", "w_v", "b_q", "b_k", "b_v"}
    # attn's relations read the clamped q8, k8, v8: still over the integers; o, its output,
    # committed, keeps its bound for any later reader as a hidden tensor would.
    assert not [r for r in mod_p_relations(g) if "attn" in r]


def test_a_committed_input_is_its_readers_committed_input_and_an_output_keeps_its_bound():
    g, *_ = block()
    views = worst_cases(g)
    assert "x" in views[0].committed and "x" not in views[0].inputs
    assert "o" not in views[-1].committed and "o" not in views[-1].unbounded


def test_a_committed_input_summed_over_its_padding_shows_it_zero():
    """pool sums x over its padded rows: read from a commitment, which binds the padding too,
    x's padding rows must be shown zero, as in a layer walk with x committed."""
    g, hidden = assemble([(pool.make_statement(np.arange(15).reshape(5, 3)), {})], ["y"])
    g, hidden, data = commit_graph_io(g, hidden, POSEIDON_PARAMS)
    proof = prove_graph(g, hidden, data)
    verify_graph(proof)
    assert proof.nodes[0].layer.empty_rows is not None
    layer = dataclasses.replace(proof.nodes[0].layer, empty_rows=None)
    stripped = dataclasses.replace(proof, nodes=[dataclasses.replace(proof.nodes[0], layer=layer)])
    assert check_of(None, stripped) == "padding.empty_rows"


def test_every_tampering_is_rejected_by_a_named_check():
    *_, proof = block()
    hit = rejections(None, proof, graph_mutations)
    assert "walk.output_values" in hit


def test_a_value_for_exactly_each_committed_output():
    *_, proof = block()
    for outputs in ({}, {**proof.outputs, "zz": proof.outputs["o"]}):
        tampered = dataclasses.replace(proof, outputs=outputs)
        assert check_of(None, tampered) == "walk.output_values"


def _restated(**changes):
    *_, proof = block()
    return dataclasses.replace(proof, statement=dataclasses.replace(proof.statement, **changes))


def test_structure_knows_committed_inputs_and_outputs():
    g, *_ = block()
    x = g.committed["x"]
    cases = {
        "a committed name also public": dict(inputs={"x": np.zeros((5, 7), dtype=np.int64)}),
        "a committed name also hidden": dict(hidden={**g.hidden, "o": (5, 6)}),
        "a commitment of the wrong size": dict(
            committed={
                **g.committed,
                "x": dataclasses.replace(x, commitment=dataclasses.replace(x.commitment, n_vars=7)),
            }
        ),
        "a committed input grown past 2^24": dict(
            committed={**g.committed, "x": dataclasses.replace(x, shape=[1 << 13, 1 << 12])}
        ),
    }
    for doc, change in cases.items():
        with pytest.raises(VerificationError) as e:
            verify_graph(_restated(**change))
        assert e.value.check == "graph.shape", doc


def test_a_committed_name_read_as_a_weight_is_refused():
    g, *_ = block()
    node = g.nodes[0]
    nodes = (dataclasses.replace(node, weights={**node.weights, "w_q": "x"}), *g.nodes[1:])
    with pytest.raises(VerificationError) as e:
        verify_graph(_restated(nodes=nodes))
    assert e.value.check == "graph.shape"


def test_the_opening_counts_the_committed_inputs_and_outputs_claims():
    """One claim per committed output (its draw) and per node reading a committed input:
    the encoder reads x twice (linear and the residual add)."""
    with_io = graph_proof("encoder_io").statement
    without = graph_proof("encoder").statement
    assert (
        error_terms(with_io, worst_cases(with_io))["weights opening"]
        > error_terms(without, worst_cases(without))["weights opening"]
    )


def test_one_hash_for_every_committed_tensor():
    """They share one opening: the soundness count has no parameters for two hashes (the
    calldata reader refuses them first, `pcs.hash`)."""
    g, hidden = examples.attention_block_example(5, 7, 2, 3, True, 0)
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    g, hidden, io_data = commit_graph_io(g, hidden, BLAKE2S_PARAMS)
    with pytest.raises(VerificationError) as e:
        prove_graph(g, hidden, data | io_data)
    assert e.value.check == "graph.params"


def test_file_and_calldata_round_trips():
    *_, proof = block()
    back = proof_file.from_json_dict(json.loads(proof_file.dumps(proof)))
    verify_graph(back)
    felts = encode_graph(proof)
    decoded = decode_graph(felts)
    verify_graph(decoded)
    assert encode_graph(decoded) == felts
    assert decoded.outputs == proof.outputs
    assert replay_graph_calldata(felts).settled is not None
    assert calldata.encode_parts(proof).flat == felts


def test_the_cli_commits_the_io_and_verify_checks_the_values(tmp_path):
    out = tmp_path / "qa.json"
    args = ["--seq", "5", "--embed", "7", "--heads", "2", "--head-dim", "3"]
    hashes = ["--commit-weights", "poseidon", "--commit-io", "poseidon"]
    result = runner.invoke(app, ["prove", "qkv-attn", *args, *hashes, "--out", str(out)])
    assert result.exit_code == 0, result.output
    io = tmp_path / "qa.io.json"
    assert "keep it" in result.output and io.exists()
    result = runner.invoke(app, ["verify", str(out), "--io", str(io)])
    assert result.exit_code == 0, result.output
    other = tmp_path / "b.json"
    seed = ["--seed", "1", "--out", str(other)]
    result = runner.invoke(app, ["prove", "qkv-attn", *args, *hashes, *seed])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify", str(out), "--io", str(tmp_path / "b.io.json")])
    assert result.exit_code == 1 and "commitment.mismatch" in result.output


def test_two_hashes_are_refused_before_any_work(tmp_path):
    args = ["--seq", "5", "--embed", "7", "--heads", "2", "--head-dim", "3"]
    hashes = ["--commit-weights", "poseidon", "--commit-io", "blake2s"]
    out = tmp_path / "qa.json"
    result = runner.invoke(app, ["prove", "qkv-attn", *args, *hashes, "--out", str(out)])
    assert result.exit_code == 2 and "one hash" in result.output
    assert not out.exists()


@pytest.mark.parametrize("reader", ["linear", "add"])
def test_junk_in_a_committed_inputs_padding_is_refused(reader):
    """x is 3 × 2, its commitment a 4 × 2 table whose padding row is [1000, −7]: a projection
    (or a residual add) carries the row into a hidden tensor's padding, which pool then sums
    into the public output. The walk shows every committed input zero outside its shape."""
    x = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int64)
    junk = np.vstack([x, [[1000, -7]]])
    ct, data = commit_tensor(junk, POSEIDON_PARAMS)
    ct = dataclasses.replace(ct, shape=[3, 2])
    if reader == "linear":
        w, b = np.array([[2, 0, 1], [1, 1, 0]]), np.array([5, 6, 7])
        hid = junk @ w + np.array([[1], [1], [1], [0]]) * b
        first = Node("linear", (3, 2, 3), {"x": "x"}, {"y": "hid"}, {"w": "w", "b": "b"})
        weights = {"w": w, "b": b}
    else:
        hid = junk + np.vstack([x, [[0, 0]]])  # x2 = x, public: zero-padded
        first = Node("add", (3, 2), {"a": "x", "b": "x2"}, {"y": "hid"})
        weights = {}
    nodes = (first, Node("pool", (3, hid.shape[1]), {"x": "hid"}, {"y": "y"}))
    inputs = {"x2": x} if reader == "add" else {}
    g = GraphStatement(
        nodes, {"hid": (3, hid.shape[1])}, inputs, {"y": hid.sum(0)}, weights, {"x": ct}
    )
    proof = prove_graph(g, {"x": junk, "hid": hid}, {"x": data})
    assert check_of(None, proof) == "padding.empty_rows"
    assert check_of(None, dataclasses.replace(proof, padding={})) == "padding.empty_rows"


def test_a_whole_attention_layer_with_its_io_committed():
    """Projections, attention with softmax, the output projection: seven nodes, x and out
    committed; attn's relations and the requantizations' outputs stay over the integers."""
    g, hidden = examples.attention_layer_example(5, 7, 2, 3, False, 0)
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    g, hidden, io_data = commit_graph_io(g, hidden, POSEIDON_PARAMS)
    proof = prove_graph(g, hidden, data | io_data)
    verify_graph(proof)
    st = proof.statement
    assert [n.kind for n in st.nodes][-2:] == ["requant", "linear"]
    assert set(st.io()) == {"x", "out"} and not [r for r in mod_p_relations(st) if "attn" in r]


def test_verify_onchain_says_to_commit_a_statement_too_large(tmp_path):
    """x and o public at 128 tokens: the statement alone is over a transaction's calldata, so
    no session could start; refused before any connection, saying what to do."""
    out = tmp_path / "big.json"
    args = ["--seq", "128", "--embed", "192", "--heads", "6", "--head-dim", "32"]
    result = runner.invoke(
        app, ["prove", "qkv-attn", *args, "--commit-weights", "poseidon", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify-onchain", str(out), "--rpc", "http://127.0.0.1:9"])
    assert result.exit_code == 2, result.output
    assert "statement's calldata" in result.output and "--commit-io" in result.output


def test_a_graph_without_inputs_commits_its_output_only():
    """ids → embed → requant → pool: the token ids are embed's dims, so the graph has no input
    tensor; committing its I/O commits the pooled output alone, and no padding proof is due."""
    proof = graph_proof("lookup_chain_io")
    verify_graph(proof)
    assert set(proof.statement.io()) == {"y"} and set(proof.outputs) == {"y"}
    assert proof.padding == {} and proof.statement.inputs == {}


def test_the_statistics_a_layernorm_reads_stay_public():
    """commit_graph_io commits the graph's input and output but not layernorm's s1 and s2: its
    check reads them (a committed one would be `graph.shape`)."""
    g, hidden = examples.residual_norm_example(4, 6, 4)
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    g, hidden, io = commit_graph_io(g, hidden, POSEIDON_PARAMS)
    assert set(g.outputs) == {"s1", "s2"} and {"x", "out"} <= set(g.committed)
    verify_graph(prove_graph(g, hidden, data | io))
