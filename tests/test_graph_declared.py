"""Declared weights in a model walk (prover/graph/declared.py): a committed weight declared, and
certified by range proofs over its commitment, is read at its declared range, so the relations
reading it are checked over the integers; a declaration no certificate proves is refused."""

import dataclasses
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn import examples
from cairn.cli import app
from cairn.prover.errors import VerificationError
from cairn.prover.graph.declared import (
    CERTIFICATE_GAS,
    CERTIFICATE_WEIGHTS,
    WeightRange,
    certificate_chunks,
    certificate_gas,
    certify,
    check_certified,
)
from cairn.prover.graph.prover import assemble, commit_graph_weights, prove_graph
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import mod_p_relations, output_bounds
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.linear import model as linear
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.serializer import proof_file
from cairn.serializer.errors import MalformedProofError


def _linear(rng_seed=1, x_bound=100, w_top=2047, rows=6):
    rng = np.random.default_rng(rng_seed)
    x = rng.integers(-x_bound, x_bound, (4, rows))
    w = rng.integers(-w_top, w_top + 1, (rows, 5))
    b = rng.integers(-(1 << 20), 1 << 20, (5,))
    return linear.make_statement(x, {"w": w, "b": b})


def _graph(st, declared=None):
    """One linear node, w and b committed, declared as given (name → (bits, summed))."""
    g, hidden = assemble([(st, {})], ["y"])
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    ranges = {}
    for name, (bits, summed) in (declared or {}).items():
        w = g.weights[name]
        ranges[name] = dataclasses.replace(WeightRange.of(w, summed), bits=bits)
    return dataclasses.replace(g, declared=ranges), hidden, data


@pytest.fixture(scope="module")
def declared_proof():
    g, hidden, data = _graph(_linear(), {"w": (12, True), "b": (21, False)})
    return prove_graph(g, hidden, data), certify(g.declared, g.committed, g.weights, data)


def test_declared_weights_make_the_relations_hold_over_the_integers(declared_proof):
    proof, certificates = declared_proof
    verify_graph(proof, certificates)
    assert mod_p_relations(proof.statement) == []
    g, hidden, data = _graph(_linear())
    assert mod_p_relations(prove_graph(g, hidden, data).statement) == ["node 0 (linear): x·w + b"]


def test_a_proof_file_carries_the_declarations_and_their_certificates(declared_proof, tmp_path):
    """`cairn verify` checks a model walk's certificates from its file; without them the
    declarations are refused (`graph.declared`); a malformed one is named by its path."""
    proof, certificates = declared_proof
    path = tmp_path / "declared.json"
    proof_file.save(proof, path, certificates=certificates)
    loaded, certs = proof_file.load_bundle(path)
    assert loaded.statement.declared == proof.statement.declared
    verify_graph(loaded, certs)
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0 and "holds over the integers" in result.output, result.output
    doc = json.loads(path.read_text())
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({k: v for k, v in doc.items() if k != "certificates"}))
    result = CliRunner().invoke(app, ["verify", str(bare)])
    assert result.exit_code == 1 and "graph.declared" in result.output
    for edit, field in [
        (lambda d: d["certificates"][0].update(kind="linear"), "certificates[0].kind"),
        (lambda d: d["certificates"][0]["statement"].update(dims="x"), "certificates[0].statement"),
        (lambda d: d["statement"]["declared"]["w"].update(bits="x"), "statement.declared.w.bits"),
        (lambda d: d["statement"]["declared"]["w"].update(col_max=1.5), "statement.declared.w"),
    ]:
        bad = json.loads(json.dumps(doc))
        edit(bad)
        with pytest.raises(MalformedProofError) as e:
            proof_file.bundle_from_json_dict(bad)
        assert e.value.field.startswith(field), (field, e.value.field)
        bare.write_text(json.dumps(bad))
        result = CliRunner().invoke(app, ["verify", str(bare)])
        assert result.exit_code == 2 and "Traceback" not in result.output
    layer = json.loads(proof_file.dumps(certificates[0]))  # a layer proof's file: none
    with pytest.raises(MalformedProofError, match="only a model walk's"):
        proof_file.bundle_from_json_dict({**layer, "certificates": doc["certificates"]})


def test_a_declaration_needs_its_certificate(declared_proof):
    proof, certificates = declared_proof
    with pytest.raises(VerificationError) as e:
        verify_graph(proof)
    assert e.value.check == "graph.declared"
    g = proof.statement  # a declaration of no committed weight: refused by name, no KeyError
    with pytest.raises(VerificationError) as e:
        check_certified({**g.declared, "x": g.declared["b"]}, g.committed, certificates)
    assert e.value.check == "graph.declared"


@pytest.mark.parametrize("change", ["bits", "col_max", "summed"])
def test_a_declaration_other_than_the_certified_one_is_refused(declared_proof, change):
    proof, certificates = declared_proof
    g = proof.statement
    w = g.declared["w"]
    other = {
        "bits": dataclasses.replace(w, bits=13),
        "col_max": dataclasses.replace(w, col_max=w.col_max + 1),
        "summed": WeightRange(w.bits),
    }[change]
    with pytest.raises(VerificationError) as e:
        check_certified({**g.declared, "w": other}, g.committed, certificates)
    assert e.value.check == "graph.declared"


def test_a_certificate_over_another_commitment_is_refused(declared_proof):
    """Another W of the same shape and bits, certified alike: its certificate is over another
    commitment, so it declares nothing of the graph's W."""
    proof, _ = declared_proof
    st = _linear(rng_seed=2)  # another W of the same shape and bits
    g2, _, data2 = _graph(st, {"w": (12, True), "b": (21, False)})
    others = certify(g2.declared, g2.committed, g2.weights, data2)
    with pytest.raises(VerificationError) as e:
        verify_graph(proof, others)
    assert e.value.check == "graph.declared"


def test_a_tampered_certificate_is_rejected_by_its_named_check(declared_proof):
    proof, certificates = declared_proof
    cert = certificates[0]
    logup = cert.layer.logup
    sumcheck = logup.layers[-1].sumcheck
    rounds = [list(r) for r in sumcheck.rounds]
    rounds[0][0] = rounds[0][0] + rounds[0][0].one()
    last = dataclasses.replace(
        logup.layers[-1], sumcheck=dataclasses.replace(sumcheck, rounds=rounds)
    )
    layer = dataclasses.replace(
        cert.layer, logup=dataclasses.replace(logup, layers=[*logup.layers[:-1], last])
    )
    with pytest.raises(VerificationError) as e:
        verify_graph(proof, [dataclasses.replace(cert, layer=layer), *certificates[1:]])
    assert e.value.check == "gkr.layer"


def test_the_declared_bound_is_what_the_relations_are_checked_at():
    """Declared 30 bits, W is read at 2^29 everywhere: x·W can wrap, so the graph is refused."""
    g, hidden, data = _graph(_linear(), {"w": (30, False), "b": (21, False)})
    with pytest.raises(VerificationError) as e:
        prove_graph(g, hidden, data)
    assert e.value.check == "statement.range"


def test_declared_column_sums_bound_the_products():
    """x (|x| < 2^15) times a 64 × 5 W whose columns sum to at most 64·100 + 2047: summed at 12
    bits, its column sums bound x·W below (p−1)/2; declared 17 bits (not summed), W is read at
    2^16 everywhere and 64·2^16·2^15 is beyond."""
    st = _linear(rng_seed=3, x_bound=1 << 15, w_top=100, rows=64)
    st.weights["w"][0, 0] = 2047
    st = linear.make_statement(st.inputs["x"], st.weights)
    g, hidden, data = _graph(st, {"w": (12, True), "b": (21, False)})
    proof = prove_graph(g, hidden, data)
    verify_graph(proof, certify(g.declared, g.committed, g.weights, data))
    assert mod_p_relations(proof.statement) == []
    g, hidden, data = _graph(st, {"w": (17, False), "b": (21, False)})
    with pytest.raises(VerificationError) as e:
        prove_graph(g, hidden, data)
    assert e.value.check == "statement.range"


@pytest.mark.parametrize(
    ("declared", "problem"),
    [
        ({"x": WeightRange(12)}, "not a committed weight"),
        ({"w": WeightRange(17, 0)}, "range.params"),
        ({"w": WeightRange(12, -1)}, "largest column sum in"),
        ({"w": WeightRange(12, 64 * 2047 + 1)}, "largest column sum in"),
    ],
)
def test_malformed_declarations_are_refused_by_name(declared, problem):
    g, hidden, data = _graph(_linear())
    g = dataclasses.replace(g, declared=declared)
    with pytest.raises(VerificationError, match=problem) as e:
        prove_graph(g, hidden, data)
    assert e.value.check == "graph.declared"


@pytest.mark.parametrize("declared", [("word_0", "position"), ("word_0", "word_1", "position")])
def test_an_embedding_tables_blocks_are_declared_all_or_none(declared):
    """Embed's relation reads word_0 for every block: declared alone, it is refused by name."""
    from tests.test_layer_embed import _statement

    st = _statement(5, 7, 4, 6, 3, ids=[6, 0, 1, 5, 2])  # both blocks looked up
    names = {local: f"embed.{local}" for local in st.weights} | {"y": "embed.y"}
    g, hidden = assemble([(st, names)], ["embed.y"])
    g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    ranges = {f"embed.{n}": WeightRange.of(g.weights[f"embed.{n}"], False) for n in declared}
    g = dataclasses.replace(g, declared=ranges)
    if len(declared) == 2:
        with pytest.raises(VerificationError, match="all declared") as e:
            prove_graph(g, hidden, data)
        assert e.value.check == "statement.shape"
    else:
        proof = prove_graph(g, hidden, data)
        verify_graph(proof, certify(g.declared, g.committed, g.weights, data))
        assert mod_p_relations(proof.statement) == []


def test_bounds_of_malformed_dims_are_none_not_a_crash():
    """A model walk reads a node's output bounds before the node's check refuses its dims (as
    the Cairo views, which check first, refuse them by name): no bound, never an exception or
    a 2^32-bit integer."""
    h, gamma = np.ones((2, 4), dtype=np.int64), np.ones(4, dtype=np.int64)
    st = layernorm.make_statement(h, gamma, gamma, examples.layernorm_params(h, gamma))
    for dims in [st.dims[:3], (*st.dims[:3], 1 << 32, *st.dims[4:]), (2, 0, *st.dims[2:])]:
        assert output_bounds(dataclasses.replace(st, dims=dims)) == dict.fromkeys(st.outputs)
    st = embed.make_statement([1, 2], np.ones((3, 4)), np.ones((2, 4)))
    assert output_bounds(dataclasses.replace(st, dims=(2, 3, 0, *st.dims[3:]))) == {"y": None}


def test_certificates_are_packed_by_their_first_transactions_gas():
    """At most CERTIFICATE_WEIGHTS weights a certificate, its first transaction on chain within
    CERTIFICATE_GAS by `certificate_gas` (the column sums dominate), the costliest packed first;
    names in order within one."""
    vectors = {f"v{i:02d}": WeightRange(8, 0) for i in range(CERTIFICATE_WEIGHTS + 4)}
    shapes = dict.fromkeys(vectors, (5,))
    assert [len(c) for c in certificate_chunks(vectors, shapes)] == [CERTIFICATE_WEIGHTS, 4]
    wide = {name: WeightRange(8, 0) for name in "abc"} | {"d": WeightRange(22)}
    shapes = dict.fromkeys(wide, (384, 1536)) | {"d": (1536,)}
    chunks = certificate_chunks(wide, shapes)
    assert chunks == [["a", "b"], ["c", "d"]]  # d: two limb columns, no sums
    for chunk in chunks:
        assert certificate_gas([wide[n].declared(shapes[n]) for n in chunk]) <= CERTIFICATE_GAS


def test_every_certificate_of_a_weight_counts():
    """Two certificates of one W at different declarations: either order, the graph's
    declaration is found (as the contract holds every key it certified)."""
    g, hidden, data = _graph(_linear(), {"w": (12, True), "b": (21, False)})
    proof = prove_graph(g, hidden, data)
    certificates = certify(g.declared, g.committed, g.weights, data)
    wider = {"w": dataclasses.replace(g.declared["w"], bits=13)}
    other = certify(wider, g.committed, g.weights, data)
    verify_graph(proof, [*certificates, *other])
    verify_graph(proof, [*other, *certificates])
