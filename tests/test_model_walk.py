"""all-MiniLM-L6-v2 as one model walk (models/minilm/walk.py): the real weights, calibrated,
proven from token ids to the pooled embedding. One encoder layer keeps the suite fast; the
six-layer figures are in the README (`cairn prove model minilm`)."""

import dataclasses
import functools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.models.minilm import accuracy, model_file, quantized, walk
from cairn.models.minilm.quantized import Widths
from cairn.models.minilm.tokenizer import Tokenizer
from cairn.prover.graph.prover import prove_graph
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import mod_p_relations, security_bits
from cairn.serializer import proof_file
from cairn.serializer.errors import MalformedProofError
from tests.proof_mutations import check_of, graph_mutations

TEXT = "A man is eating food."


@functools.cache
def one_layer() -> quantized.QuantModel:
    """The calibrated model cut to its first encoder layer (weights of the others dropped)."""
    model = accuracy.calibrated_model(Widths())
    weights = {n: t for n, t in model.weights.items() if not n.startswith(("layer1", "layer2",
               "layer3", "layer4", "layer5"))}  # fmt: skip
    config = dataclasses.replace(model.config, layers=1)
    return dataclasses.replace(model, config=config, weights=weights)


@functools.cache
def proven():
    model = one_layer()
    ids = Tokenizer().encode(TEXT).ids
    g, hidden = walk.build(model, ids)
    return model, ids, g, prove_graph(g, hidden)


def test_the_encoder_is_proven_from_token_ids_to_the_pooled_embedding():
    model, ids, _, proof = proven()
    verify_graph(proof)
    st = proof.statement
    assert not st.inputs  # the token ids are embed's dims
    assert np.array_equal(st.outputs[walk.POOLED], quantized.forward(model, ids).sum)
    stats = {n for n in st.outputs if n != walk.POOLED}
    assert stats == {f"{ln}.{s}" for ln in ("embed.ln", "layer0.ln1", "layer0.ln2")
                     for s in ("s1", "s2")}  # fmt: skip
    kinds = [n.kind for n in st.nodes]
    assert kinds.count("attn") == 1 and kinds.count("layernorm") == 3 and kinds[-1] == "pool"
    assert mod_p_relations(st) == []  # public weights: every relation holds over the integers
    assert security_bits(st) >= 96


def test_tampered_model_proofs_are_rejected_by_named_checks():
    *_, proof = proven()
    sample = list(graph_mutations(proof))[::40]
    checks = {check_of(None, tampered) for _, tampered in sample}
    assert None not in checks and len(sample) > 20


def test_weights_by_reference_are_rebuilt_and_checked(tmp_path):
    model, _, _, proof = proven()
    path = tmp_path / "model.json"
    proof_file.save(proof, path, weights_from=walk.MODEL)
    doc = json.loads(path.read_text())["statement"]
    assert doc["weights"] == {} and "layer0.w_q" in doc["weights_from"]["digests"]
    weights = walk.graph_weights(model)
    verify_graph(proof_file.load(path, lambda _: weights))
    with pytest.raises(MalformedProofError, match="load it"):
        proof_file.load(path)
    changed = dict(weights)
    changed["layer0.w_q"] = weights["layer0.w_q"] + 1
    with pytest.raises(MalformedProofError) as err:
        proof_file.load(path, lambda _: changed)
    assert err.value.field == "statement.weights_from.digests.layer0.w_q"


def test_prove_model_minilm_from_the_cli(tmp_path, monkeypatch):
    """The one-layer model stands in for `cairn model import minilm` (its real import is
    tested in tests/test_models_minilm.py; it commits every weight, minutes of work)."""
    model = one_layer()
    imported = model_file.Imported(tmp_path / "minilm.model.json", model, {})
    monkeypatch.setattr(walk, "load_imported", lambda _: imported)
    runner, out = CliRunner(), tmp_path / "proof.json"
    result = runner.invoke(app, ["prove", "model", "minilm", "--text", TEXT, "--out", str(out)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 0 and "holds over the integers" in result.output
    result = runner.invoke(app, ["inspect", str(out), "--json"])
    doc = json.loads(result.output)
    assert doc["tokens"] == Tokenizer().encode(TEXT).ids.tolist()
    embedding = doc["embedding"]
    assert (
        embedding["count"] == len(doc["tokens"])
        and embedding["scale"] == model.scales["layer0.ln2"]
    )
    proven_direction = quantized.forward(model, np.array(doc["tokens"])).embedding()
    assert np.allclose(embedding["normalized"], proven_direction)  # what bench accuracy scores
    result = runner.invoke(app, ["prove", "model", "minilm", "--text", "  ", "--out", str(out)])
    assert result.exit_code == 2 and "empty" in result.output


def test_a_long_text_is_cut_at_128_tokens_with_a_message(tmp_path, monkeypatch):
    model = one_layer()
    imported = model_file.Imported(tmp_path / "minilm.model.json", model, {})
    monkeypatch.setattr(walk, "load_imported", lambda _: imported)
    out = tmp_path / "long.json"
    text = " ".join(accuracy.sentences("evaluation"))
    args = ["prove", "model", "minilm", "--text", text, "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0 and "tail was cut" in result.output
    assert "on 128 tokens" in result.output


def test_a_missing_model_file_says_how_to_import_it(tmp_path):
    result = CliRunner().invoke(
        app, ["prove", "model", "minilm", "--text", TEXT, "--model-file", str(tmp_path / "x")]
    )
    assert result.exit_code == 2 and "cairn model import minilm" in result.output


def test_bench_model_reports_where_the_time_goes(tmp_path, monkeypatch):
    model = one_layer()  # calibrated before the stand-in replaces the calibration
    monkeypatch.setattr(accuracy, "calibrated_model", lambda _: model)
    out = tmp_path / "bench.json"
    args = ["bench", "model", "minilm", "--tokens", "5", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (row,) = json.loads(out.read_text())["results"]
    assert row["tokens"] == 5 and row["bits"] >= 96 and row["proof_felts"] > 0
    stages = row["prove_s_by_kind"]
    assert {"checks", "settlement", "walk: attn", "witness: requant"} <= set(stages)
