"""Committed inputs and outputs: a statement binds any tensor by a PCS commitment; the claims
the walk leaves on it join the one batch opening (docs/claim-walk.md, "Committed tensors")."""

import dataclasses
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.examples import LAYER_EXAMPLES, layernorm_example
from cairn.onchain import _committed_weights
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.pool import model as pool_model
from cairn.prover.layers.posenc.model import RELATIONS as POSENC_RELATIONS
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.prover.ranges import mod_p_only
from cairn.prover.walk import claims as walk_claims
from cairn.prover.walk import prover as walk_prover
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.prover import commit_tensors, committable_io, prove_walk
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from cairn.serializer.walk_calldata import decode_walk, encode_walk
from tests.walk_examples import SHAPES, STATEMENTS, example

ONE = QM31(1, 0, 0, 0)


def _reject(proof, check):
    with pytest.raises(VerificationError) as e:
        verify_walk(LAYERS[proof.statement.kind], proof)
    assert e.value.check == check, e.value


@pytest.mark.parametrize("kind", sorted(SHAPES))
@pytest.mark.parametrize("index", [0, 1])
def test_every_onchain_kind_verifies_with_its_io_committed(kind, index):
    proof = example(kind, index, committed=True, io=True)
    st = proof.statement
    spec = LAYERS[kind]
    assert set(proof.outputs) == st.committed.keys() & set(STATEMENTS_OUTPUTS(kind, index))
    assert not (st.inputs.keys() | st.outputs.keys()) - {*spec.reads, *spec.bounded}
    verify_walk(spec, proof)
    felts = encode_walk(proof)
    assert encode_walk(decode_walk(felts)) == felts
    doc = proof_file.to_json_dict(proof)
    assert proof_file.to_json_dict(proof_file.from_json_dict(doc)) == doc


def STATEMENTS_OUTPUTS(kind, index):
    return STATEMENTS[kind](*SHAPES[kind][index]).outputs.keys()


def test_a_wrong_output_value_is_caught_by_the_opening():
    proof = example("qkv", 0, io=True)
    name = sorted(proof.outputs)[0]
    tampered = dataclasses.replace(
        proof, outputs={**proof.outputs, name: proof.outputs[name] + ONE}
    )
    with pytest.raises(VerificationError):
        verify_walk(LAYERS["qkv"], tampered)


def test_output_values_only_for_committed_outputs():
    proof = example("qkv", 0, io=True)
    missing = dict(proof.outputs)
    missing.pop("k")
    _reject(dataclasses.replace(proof, outputs=missing), "walk.output_values")
    public = example("qkv", 0)
    _reject(dataclasses.replace(public, outputs={"q": ONE}), "walk.output_values")
    with pytest.raises(VerificationError):  # a value for input x: the transcript moves
        verify_walk(LAYERS["qkv"], dataclasses.replace(proof, outputs={**proof.outputs, "x": ONE}))


def test_a_committed_tensor_no_group_claims_is_refused(monkeypatch):
    """A commitment the layer leaves no claim on: the prover cannot place it; one that places it
    anyway (no claim to open) is refused by the verifier by the same check."""
    st = STATEMENTS["matmul"](*SHAPES["matmul"][0])
    committed, data = commit_tensors(st, ["a"], PARAMS["poseidon"])
    stray = dataclasses.replace(
        committed, committed={**committed.committed, "zz": committed.committed["a"]}
    )
    data = {**data, "zz": data["a"]}
    with pytest.raises(VerificationError) as e:
        prove_walk(LAYERS["matmul"], stray, data)
    assert e.value.check == "walk.committed_claims"

    def placed(st, layer, outputs):
        real = dataclasses.replace(st, committed={"a": st.committed["a"]})
        claims = walk_claims.opening_claims(real, layer, outputs)
        return dataclasses.replace(
            claims, committed={**claims.committed, "zz": claims.committed["a"]}
        )

    monkeypatch.setattr(walk_prover, "opening_claims", placed)
    _reject(prove_walk(LAYERS["matmul"], stray, data), "walk.committed_claims")


def test_tensors_the_verifier_reads_cannot_be_committed(monkeypatch):
    """layernorm's verifier reads its row statistics: a committed s1 is refused."""
    spec = LAYERS["layernorm"]
    committed, data = commit_tensors(layernorm_example(4, 8, 0), ["s1"], PARAMS["poseidon"])
    with pytest.raises(VerificationError) as e:
        prove_walk(spec, committed, data)
    assert e.value.check == "statement.reads"
    monkeypatch.setattr(walk_prover, "expect_public_reads", lambda *_: None)
    with pytest.raises(VerificationError) as e:
        verify_walk(spec, prove_walk(spec, committed, data))
    assert e.value.check == "statement.reads"
    assert "s1" not in committable_io(spec)
    # the Cairo walk refuses it alike (tests/cairo_walk_vectors.py, `forged_committed_reads`)


def _with_empty_rows(proof, empty_rows):
    return dataclasses.replace(proof, layer=dataclasses.replace(proof.layer, empty_rows=empty_rows))


def _needs_empty_rows(spec, st, names):
    """`names` committed: the proof carries the empty-rows sum-check (prover/padding.py),
    verifies, and is refused without it."""
    committed, data = commit_tensors(st, names, PARAMS["poseidon"])
    proof = prove_walk(spec, committed, data)
    assert proof.layer.empty_rows is not None
    verify_walk(spec, proof)
    _reject(_with_empty_rows(proof, None), "padding.empty_rows")
    return proof


def test_committed_caches_have_their_empty_rows_proven_zero():
    """qkv-decode with its caches committed: the check cannot read the initial caches' empty
    rows, so the proof carries a sum-check that they are zero (docs/layers/kvcache.md,
    "Empty rows of committed caches"). A nonzero empty row is caught there; the proof without
    that sum-check, or with it for public caches, is refused."""
    spec = LAYERS["qkv-decode"]
    assert committable_io(spec) == ["k", "k0", "q", "v", "v0", "x"]
    st = STATEMENTS["qkv-decode"](*SHAPES["qkv-decode"][1])
    proof = _needs_empty_rows(spec, st, committable_io(spec))
    public = prove_walk(spec, st)
    assert public.layer.empty_rows is None
    _reject(_with_empty_rows(public, proof.layer.empty_rows), "padding.empty_rows")
    # K₀'s last row (l = 6; s₀ = 1, T = 2 write rows 1 and 2) set, and every K_t with it: the
    # steps stay consistent and only the empty rows' sum-check can see it
    st = STATEMENTS["qkv-decode"](2, 6, 3, 2, 1)
    inputs, outputs = dict(st.inputs), dict(st.outputs)
    inputs["k0"], outputs["k"] = st.inputs["k0"].copy(), st.outputs["k"].copy()
    inputs["k0"][-1, 0] += 1
    outputs["k"][:, -1, 0] += 1
    dirty = dataclasses.replace(st, inputs=inputs, outputs=outputs)
    committed, data = commit_tensors(dirty, committable_io(spec), PARAMS["poseidon"])
    _reject(prove_walk(spec, committed, data), "padding.empty_rows")


def test_posenc_io_may_be_committed_leaving_its_relation_mod_p():
    """posenc's x and o are read only by the bound on o − x: committed, the proof verifies and
    the relation holds mod p only (no range check, as for any committed operand)."""
    spec = LAYERS["posenc"]
    assert committable_io(spec) == ["o", "x"]
    st = STATEMENTS["posenc"](*SHAPES["posenc"][0])
    committed, data = commit_tensors(st, ["o", "x"], PARAMS["poseidon"])
    verify_walk(spec, prove_walk(spec, committed, data))
    assert mod_p_only(POSENC_RELATIONS, committed.committed) == ["o = x + p"]


def test_a_committed_posenc_input_has_its_padding_rows_proven_zero():
    """A commitment binds x's padded table: junk in its padding rows s … ŝ − 1 would move the
    public o's rows there away from P's. The proof shows them zero (`padding.empty_rows`)."""
    spec = LAYERS["posenc"]
    st = STATEMENTS["posenc"](3, 10, 5)  # s = 3 of ŝ = 4
    committed = _needs_empty_rows(spec, st, ["x"]).statement
    junk = np.zeros((4, 5), dtype=np.int64)
    junk[:3], junk[3] = st.inputs["x"], [7, -5, 11, 1000, 2]
    outputs = {"o": st.outputs["o"] + np.vstack([np.zeros((3, 5), np.int64), junk[3:]])}
    tensor, table = commit_tensor(junk, PARAMS["poseidon"])  # x's padded table, junk row 3
    x = dataclasses.replace(tensor, shape=[3, 5])
    forged = dataclasses.replace(committed, inputs={"x": junk}, outputs=outputs, committed={"x": x})
    _reject(prove_walk(spec, forged, {"x": table}), "padding.empty_rows")


def pool_padding_forgery() -> WalkProof:
    """pool with x committed (s = 3 of ŝ = 4) as a padded table with junk in row 3, which the
    column sum X̃(½, ½, r)·4 would add to y: y = [6] + junk claimed."""
    x = np.array([[1], [2], [3], [5]])  # row 3 is the padding row
    tensor, table = commit_tensor(x, PARAMS["poseidon"])
    st = pool_model.make_statement(x[:3])
    forged = dataclasses.replace(
        st,
        inputs={"x": x},
        outputs={"y": x.sum(axis=0)},
        committed={"x": dataclasses.replace(tensor, shape=[3, 1])},
    )
    return prove_walk(LAYERS["pool"], forged, {"x": table})


def test_a_committed_pool_input_has_its_padding_rows_proven_zero():
    """pool's claim sums x's padded rows: a committed x shows rows s … ŝ − 1 are zero, so junk
    there (y = 11 for rows 1, 2, 3) is refused (`padding.empty_rows`)."""
    _needs_empty_rows(LAYERS["pool"], STATEMENTS["pool"](3, 4, 0), ["x"])
    _reject(pool_padding_forgery(), "padding.empty_rows")


def test_a_binding_names_the_committed_weights_not_the_io(monkeypatch):
    st = STATEMENTS["linear"](*SHAPES["linear"][0])
    spec = LAYERS["linear"]
    names = ["b", "w", *committable_io(spec)]
    committed, data = commit_tensors(st, names, PARAMS["poseidon"])
    weights_only = ModelBinding(5, 0, {"b": 0, "w": 1})
    verify_walk(spec, prove_walk(spec, dataclasses.replace(committed, binding=weights_only), data))
    with_io = dataclasses.replace(committed, binding=ModelBinding(5, 0, {"b": 0, "w": 1, "x": 2}))
    with pytest.raises(VerificationError) as e:
        prove_walk(spec, with_io, data)
    assert e.value.check == "statement.binding"
    monkeypatch.setattr(walk_prover, "expect_binding", lambda *_: None)
    _reject(prove_walk(spec, with_io, data), "statement.binding")


def test_a_binding_needs_a_committed_weight(monkeypatch):
    """A binding with no committed weight would have the contract record a model the proof
    says nothing about: refused by the prover and by the verifier (`statement.binding`)."""
    spec = LAYERS["matmul"]
    st = dataclasses.replace(
        STATEMENTS["matmul"](*SHAPES["matmul"][0]), binding=ModelBinding(5, 0, {})
    )
    with pytest.raises(VerificationError) as e:
        prove_walk(spec, st)
    assert e.value.check == "statement.binding"
    monkeypatch.setattr(walk_prover, "expect_binding", lambda *_: None)
    _reject(prove_walk(spec, st), "statement.binding")


def test_a_public_and_committed_tensor_is_malformed():
    proof = example("matmul", 0, io=True)
    doc = proof_file.to_json_dict(proof)
    doc["statement"]["inputs"] = proof_file.to_json_dict(example("matmul", 0))["statement"][
        "inputs"
    ]
    with pytest.raises(proof_file.MalformedProofError) as e:
        proof_file.from_json_dict(doc)
    assert e.value.field == "statement.inputs"


def test_cli_commits_io_and_verify_checks_the_values(tmp_path):
    runner = CliRunner()
    out = tmp_path / "q.proof.json"
    args = ["prove", "qkv", "--seq", "3", "--embed", "5", "--hidden", "2", "--out", str(out)]
    result = runner.invoke(app, [*args, "--commit-io", "poseidon"])
    assert result.exit_code == 0, result.output
    io = tmp_path / "q.proof.io.json"
    assert "cairn verify" in result.output and io.is_file()
    result = runner.invoke(app, ["verify", str(out), "--io", str(io)])
    assert result.exit_code == 0 and "committed k, q, v, x (poseidon)" in result.output
    result = runner.invoke(app, ["inspect", str(out)])
    assert (
        "tensors       weight w_q 5×2, " in result.output
        and "committed x 3×5 (poseidon)" in result.output
    )
    doc = json.loads(io.read_text())
    doc["tensors"]["x"][0][0] += 1
    io.write_text(json.dumps(doc))
    result = runner.invoke(app, ["verify", str(out), "--io", str(io)])
    assert result.exit_code == 1 and "commitment.mismatch" in result.output
    result = runner.invoke(app, [*args, "--commit-io", "poseidon", "--commit-weights", "blake2s"])
    assert result.exit_code == 2 and "one hash" in result.output
    graph = tmp_path / "g.json"
    result = runner.invoke(
        app,
        [
            "prove",
            "qkv-attn",
            "--seq",
            "4",
            "--embed",
            "8",
            "--heads",
            "2",
            "--head-dim",
            "4",
            "--out",
            str(graph),
        ],
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify", str(graph), "--io", str(io)])  # x and o public
    assert result.exit_code == 1 and "commitment.mismatch" in result.output


def test_register_model_from_a_proof_takes_its_committed_weights_only(tmp_path):
    """`cairn register-model --proof` registers the weights a binding indexes, not the
    committed inputs and outputs (the walk's claims say which are weights)."""
    proof = example("linear", 0, committed=True, io=True)
    path = tmp_path / "p.json"
    proof_file.save(proof, path)
    weights = _committed_weights(path, proof_file.load(path))
    assert weights == [proof.statement.committed[n] for n in ("b", "w")]


@pytest.mark.parametrize("kind", ["matmul", "linear"])
def test_junk_in_committed_padding_cannot_enter_a_product(kind):
    """A commitment binds its tensor's padded table, padding included: with both factors
    committed, a[:, k] and b[k, :] beyond k = 3 may be anything. The sum-check's inner mask
    keeps them out of the product, so c = a·b + junk is refused."""
    rng = np.random.default_rng(1)
    a, b = rng.integers(-5, 5, (3, 4)), rng.integers(-5, 5, (4, 2))
    a[:, 3], b[3, :] = 2, 3  # the junk: one column and row beyond k = 3
    padded = STATEMENTS[kind](3, 4, 2) if kind == "linear" else None
    inputs = {"a": a} if kind == "matmul" else {"x": a}
    weights = {"b": b} if kind == "matmul" else {"w": b, "b": padded.weights["b"]}
    x, w = ("a", "b") if kind == "matmul" else ("x", "w")
    out = "c" if kind == "matmul" else "y"
    bias = weights.get("b") if kind == "linear" else 0
    st = Statement(kind, (3, 3, 2), inputs, {out: a @ b + bias}, weights)
    st, data = commit_tensors(st, [x, w], PARAMS["poseidon"])
    shapes = {x: [3, 3], w: [3, 2]}
    committed = {n: dataclasses.replace(c, shape=shapes[n]) for n, c in st.committed.items()}
    proof = prove_walk(LAYERS[kind], dataclasses.replace(st, committed=committed), data)
    with pytest.raises(VerificationError) as e:
        verify_walk(LAYERS[kind], proof)
    assert e.value.check == f"{kind}.final_evaluation"


def test_every_kind_declares_its_inputs_and_outputs():
    """`LayerSpec.inputs` and `.outputs` (a committed output's value may be sent for these only)
    name each kind's inputs and outputs, as its example statement has them (range: any of its
    32 column sums)."""
    for kind, example_ in LAYER_EXAMPLES.items():
        st = example_.build()
        assert set(LAYERS[kind].inputs) == set(st.inputs), kind
        assert set(st.outputs) <= set(LAYERS[kind].outputs), kind
        assert kind == "range" or set(LAYERS[kind].outputs) == set(st.outputs), kind


def test_a_value_for_a_commitment_the_kind_does_not_output_is_refused():
    """A committed tensor the kind never names, sent an output value: refused before any point
    is drawn for it (else it would ride along in the statement and the opening)."""
    proof = example("matmul", 0, io=True)
    st = proof.statement
    extra = dataclasses.replace(st, committed={**st.committed, "zz": st.committed["c"]})
    forged = dataclasses.replace(proof, statement=extra, outputs={**proof.outputs, "zz": ONE})
    _reject(forged, "walk.output_values")
