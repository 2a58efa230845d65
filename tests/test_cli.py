"""The `cairn` command as a user runs it: exit codes, messages, no tracebacks."""

import inspect
import json
import subprocess
import sys

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from cairn.cli import app
from cairn.examples import LAYER_EXAMPLES
from cairn.options import Dim
from cairn.prove_cmd import weight_options
from cairn.prover.fields import P
from cairn.prover.layers.registry import LAYERS
from cairn.serializer import proof_file

runner = CliRunner()
CAIRN = [sys.executable, "-m", "cairn"]


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def test_must_show_prove_and_verify_128x256x64(tmp_path):
    proof = tmp_path / "p.json"
    prove = subprocess.run(
        [
            *CAIRN,
            "prove",
            "matmul",
            "--m",
            "128",
            "--k",
            "256",
            "--n",
            "64",
            "--seed",
            "7",
            "--out",
            proof,
        ],
        capture_output=True,
        text=True,
    )
    assert prove.returncode == 0, prove.stderr
    verify = subprocess.run([*CAIRN, "verify", proof], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    assert "accepted" in verify.stdout
    calldata = subprocess.run(
        [*CAIRN, "calldata", proof, "--out", tmp_path / "c.json"], capture_output=True, text=True
    )
    assert calldata.returncode == 0 and "7246 felts" in calldata.stdout
    assert len(json.loads((tmp_path / "c.json").read_text())) == 7246


@pytest.fixture(scope="module")
def small_proof(tmp_path_factory):
    path = tmp_path_factory.mktemp("proof") / "small.json"
    assert (
        run("prove", "matmul", "--m", 3, "--k", 5, "--n", 2, "--seed", 1, "--out", path).exit_code
        == 0
    )
    return path


def numeric_paths(node, path=()):
    """Every integer leaf of a JSON document, as a key path."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from numeric_paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from numeric_paths(value, (*path, i))
    elif isinstance(node, int) and not isinstance(node, bool):
        yield path


def set_path(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def get_path(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def test_every_numeric_field_tampered_is_rejected(small_proof, tmp_path):
    doc = json.loads(small_proof.read_text())
    paths = [p for p in numeric_paths(doc) if p != ("version",)]
    assert len(paths) > 50
    for path in paths:
        tampered = json.loads(small_proof.read_text())
        old = get_path(tampered, path)
        in_field = path[0] == "proof"
        set_path(tampered, path, (old + 1) % P if in_field else old + 1)
        f = tmp_path / "t.json"
        f.write_text(json.dumps(tampered))
        result = run("verify", f)
        assert result.exit_code == 1, (path, result.output)
        assert "rejected: check" in result.output


def test_rejection_names_the_check(small_proof, tmp_path):
    doc = json.loads(small_proof.read_text())
    doc["statement"]["outputs"]["c"][0][0] += 1
    f = tmp_path / "t.json"
    f.write_text(json.dumps(doc))
    assert "matmul.final_evaluation" in run("verify", f).output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (lambda text: text[: len(text) // 2], "not valid JSON"),
        (lambda text: "hello, not json", "not valid JSON"),
        (lambda text: text.replace('"version":1', '"version":7'), "unsupported version 7"),
        (lambda text: "[]", "expected a JSON object"),
    ],
)
def test_malformed_files_exit_2(small_proof, tmp_path, content, message):
    f = tmp_path / "bad.json"
    f.write_text(content(small_proof.read_text()))
    for command in ("verify", "calldata", "inspect"):
        result = run(command, f)
        assert result.exit_code == 2, result.output
        assert message in result.output


def test_missing_file_and_usage_errors(tmp_path):
    assert run("verify", tmp_path / "none.json").exit_code == 2
    assert run("prove", "matmul", "--m", 0).exit_code == 2
    assert run("verify").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_prove_from_npy(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, np.arange(6).reshape(2, 3))
    np.save(b, np.arange(12).reshape(3, 4))
    out = tmp_path / "p.json"
    assert run("prove", "matmul", "--a", a, "--b", b, "--out", out).exit_code == 0
    assert (
        json.loads(out.read_text())["statement"]["outputs"]["c"][1]
        == (np.arange(6).reshape(2, 3) @ np.arange(12).reshape(3, 4))[1].tolist()
    )
    np.save(b, np.arange(8).reshape(4, 2))
    result = run("prove", "matmul", "--a", a, "--b", b, "--out", tmp_path / "q.json")
    assert result.exit_code == 2 and "cannot multiply" in result.output
    assert not (tmp_path / "q.json").exists()
    (tmp_path / "junk.npy").write_text("junk")
    assert run("prove", "matmul", "--a", tmp_path / "junk.npy", "--b", b).exit_code == 2


def test_inspect_and_calldata_stdout(small_proof):
    result = run("inspect", small_proof)
    assert result.exit_code == 0 and "m=3 k=5 n=2" in result.output and "felts" in result.output
    result = run("calldata", small_proof)
    assert result.exit_code == 0 and '["0x3", "0x4", ' in result.output


def test_every_layer_kind_has_a_prove_command_made_from_its_example():
    """A kind without an example would have no `cairn prove <kind>`; with one, the command's
    options are the builder's (names, defaults, help), then the kind's weight options, then
    --commit-io, then --witness-hash for a kind with witness, then --out, and its --help is the
    example's."""
    assert LAYER_EXAMPLES.keys() == LAYERS.keys(), "give the kind a LAYER_EXAMPLES entry"
    prove = typer.main.get_command(app).commands["prove"]
    for kind, example in LAYER_EXAMPLES.items():
        result = run("prove", kind, "--help")
        assert result.exit_code == 0 and f"prove {kind} [OPTIONS]" in result.output
        command = prove.commands[kind]
        assert command.help == inspect.cleandoc(example.help)
        options = {p.name: p for p in command.params}
        built = inspect.signature(example.build, eval_str=True).parameters
        weights = inspect.signature(weight_options(kind)).parameters
        witness = ["witness_hash"] if LAYERS[kind].advise else []
        assert list(options) == [*built, *weights, "commit_io", *witness, "out_path"], kind
        for name, parameter in built.items():
            option, info = options[name], parameter.annotation.__metadata__[0]
            assert f"--{name.replace('_', '-')}" in option.opts, (kind, name)
            assert (option.default, option.help) == (parameter.default, info.help), (kind, name)


def test_commit_weights_is_offered_where_the_statements_have_weights():
    """`has_weights` in the registry decides --commit-weights; each example statement, built
    small, must agree with it."""
    for kind, example in LAYER_EXAMPLES.items():
        parameters = inspect.signature(example.build, eval_str=True).parameters
        small = {name: 4 for name, p in parameters.items() if p.annotation is Dim}
        assert bool(example.build(**small).weights) == LAYERS[kind].has_weights, kind
        offered = "commit_weights" in inspect.signature(weight_options(kind)).parameters
        assert offered == LAYERS[kind].has_weights, kind


def test_help_everywhere():
    for args in (
        [],
        ["prove"],
        ["prove", "matmul"],
        ["verify"],
        ["calldata"],
        ["inspect"],
        ["toolchain"],
        ["devnet"],
        ["deploy"],
        ["verify-onchain"],
        ["demo"],
    ):
        result = run(*args, "--help")
        assert result.exit_code == 0 and "Usage" in result.output


def test_no_traceback_for_module_entry(tmp_path):
    f = tmp_path / "x.json"
    f.write_text("{")
    proc = subprocess.run([*CAIRN, "verify", f], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_too_large_to_allocate_is_a_clear_error(tmp_path):
    out = tmp_path / "huge.json"
    for args in (
        ["prove", "matmul", "--m", 1 << 20, "--k", 1 << 20, "--n", 1, "--out", out],
        ["bench", "matmul", "--shape", "1048576x1048576x2", "--repeat", 1],
    ):
        result = run(*args)
        assert result.exit_code == 2 and "not enough memory" in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["qkv", "--seq", 5, "--embed", 7, "--hidden", 3],
        ["linear", "--seq", 3, "--embed", 5, "--out-dim", 6],
        ["linear", "--seq", 1, "--embed", 1, "--out-dim", 1],
        ["add", "--rows", 3, "--cols", 5],
        ["qkv-decode", "--steps", 3, "--context", 9, "--embed", 5, "--hidden", 3],
        ["qkv-decode", "--steps", 2, "--context", 4, "--embed", 2, "--hidden", 2, "--prefill", 0],
        ["mha", "--seq", 5, "--heads", 3, "--head-dim", 3, "--causal"],
        ["posenc", "--seq", 3, "--context", 5, "--embed", 2],
        ["attn", "--seq", 3, "--heads", 3, "--head-dim", 5, "--causal"],
        ["requant", "--rows", 3, "--cols", 5, "--multiplier", 3, "--shift", 9, "--bits", 8],
        ["gelu", "--rows", 3, "--cols", 5],
        ["gelu", "--rows", 1, "--cols", 1],
        ["embed", "--seq", 3, "--vocab", 11, "--dim", 2, "--positions", 5],
        ["embed", "--seq", 1, "--vocab", 3, "--dim", 3, "--commit-weights", "blake2s"],
        ["pool", "--seq", 3, "--dim", 5],
        ["layernorm", "--seq", 3, "--dim", 5],
    ],
)
def test_every_layer_proves_and_verifies_from_the_cli(tmp_path, args):
    path = tmp_path / "layer.json"
    assert run("prove", *args, "--seed", 3, "--out", path).exit_code == 0
    result = run("verify", path)
    assert result.exit_code == 0 and f"accepted: {args[0]}" in result.output


def test_qkv_attn_proves_as_one_graph_and_inspect_lists_the_hidden_tensors(tmp_path):
    path = tmp_path / "block.json"
    args = ["--seq", 3, "--embed", 5, "--heads", 2, "--head-dim", 2, "--causal"]
    assert run("prove", "qkv-attn", *args, "--out", path).exit_code == 0
    result = run("verify", path)
    assert result.exit_code == 0 and "accepted: graph of 5 layers" in result.output
    assert "holds over the integers" in result.output
    result = run("inspect", path)
    assert result.exit_code == 0 and "hidden        " in result.output and "q8 3×4" in result.output
    committed = tmp_path / "committed.json"
    result = run("prove", "qkv-attn", *args, "--commit-weights", "blake2s", "--out", committed)
    assert result.exit_code == 0
    result = run("verify", committed)
    assert result.exit_code == 0 and "mod p only in node 0 (qkv)" in result.output


def test_layer_usage_errors_exit_2(tmp_path):
    result = run("prove", "qkv-decode", "--steps", 5, "--context", 4)
    assert result.exit_code == 2 and "must fit" in result.output
    result = run("prove", "mha", "--heads", 0)
    assert result.exit_code == 2
    out = tmp_path / "a.json"
    result = run("prove", "attn", "--gamma", 0, "--out", out)  # not silently the default
    assert result.exit_code == 2 and "positive finite" in result.output and not out.exists()
    result = run("prove", "attn", "--head-dim", 7, "--gamma", 10, "--out", out)
    assert result.exit_code == 2 and "exp resolution" in result.output and not out.exists()
    result = run("prove", "attn", "--seq", 4097, "--heads", 1, "--head-dim", 1, "--out", out)
    assert result.exit_code == 2 and "2^30" in result.output and not out.exists()
    result = run("prove", "requant", "--shift", 25, "--bits", 8, "--out", out)
    assert result.exit_code == 2 and "b + k" in result.output and not out.exists()


def test_embed_names_its_dims_and_lists_the_token_ids(tmp_path):
    path = tmp_path / "embed.json"
    args = ["--seq", 10, "--vocab", 7, "--dim", 2, "--positions", 12, "--out", path]
    assert run("prove", "embed", *args).exit_code == 0
    ids = proof_file.load(path).statement.dims[5:]
    result = run("inspect", path)
    listed = " ".join(map(str, ids[:8]))
    assert (
        result.exit_code == 0 and f"s=10 V=7 B=7 P=12 d=2 [{listed} … (10 in all)]" in result.output
    )
    result = run("prove", "embed", "--seq", 13, "--positions", 12, "--out", path)
    assert result.exit_code == 2 and "exceeds --positions" in result.output


def test_bench_softmax_reports_accuracy(tmp_path):
    out = tmp_path / "acc.json"
    assert run("bench", "softmax", "--seq", 5, "--out", out).exit_code == 0
    rows = json.loads(out.read_text())["results"]
    assert len(rows) == 6 and all(r["l1_max_proven"] <= r["l1_bound"] for r in rows)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.full((2, 2), -(2**63), dtype=np.int64), "signed M31 range"),
        (np.full((2, 2), 2**63, dtype=np.uint64), "signed M31 range"),
        (np.zeros((0, 4), dtype=np.int64), "non-empty 2-D"),
    ],
)
def test_commit_refuses_matrices_outside_the_field(tmp_path, matrix, message):
    path = tmp_path / "w.npy"
    np.save(path, matrix)
    result = run("commit", path, "--out", tmp_path / "c.json")
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["register-model", "zz", "W.commit.json"], "expected 0x… hex or a decimal"),
        (["register-model", "0", "W.commit.json"], "other than 0"),
        (["register-model", hex(2**252), "W.commit.json"], "must be a felt252"),
        (["deploy", "--owner", "0x0"], "other than 0"),
    ],
)
def test_felt_arguments_are_checked_before_anything_runs(args, message):
    result = run(*args)
    assert result.exit_code == 2 and message in result.output


@pytest.mark.parametrize(
    ("kind", "text"), [("pool", "x[i]"), ("gelu", "table[x]"), ("qkv-decode", "[context - steps]")]
)
def test_help_keeps_brackets(kind, text):
    """rich reads [word] in help as markup and drops it unless escaped."""
    assert text in run("prove", kind, "--help").output


def test_witness_hash_picks_the_witness_trees(tmp_path):
    """`--witness-hash poseidon` commits a layer's witness on Poseidon252 trees, which
    `cairn verify` reads off the proof; a hash no PCS has is a usage error."""
    path = tmp_path / "requant.json"
    args = ["--rows", 3, "--cols", 4, "--witness-hash", "poseidon", "--out", path]
    assert run("prove", "requant", *args).exit_code == 0
    proof = proof_file.load(path)
    assert {c.hash for c in proof.statement.witness.values()} == {"poseidon"}
    assert run("verify", path).exit_code == 0
    result = run("prove", "requant", "--witness-hash", "sha256", "--out", tmp_path / "x.json")
    assert result.exit_code == 2 and not (tmp_path / "x.json").exists()
