"""Layer proofs of the claim walk on a real devnet: every kind the contract reads, at odd
shapes, accepted by both verifiers with the same record; tampered proofs rejected by both
with the same named check; and the CLI path `cairn prove <kind>` → `cairn verify-onchain`."""

import dataclasses
import json
import re
from itertools import accumulate, pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.deploy import contract, registry
from cairn.deploy.certified import certified_keys
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.fields import P
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import NO_MODEL, ModelBinding
from cairn.serializer import calldata, proof_file
from cairn.serializer.header import KIND_WALK
from cairn.serializer.walk_calldata import ONCHAIN_KINDS, encode_walk
from tests import test_layer_gelu
from tests.cairo_walk_vectors import tampered_felts
from tests.walk_examples import CONFIG_HASH, MODEL_ID, SHAPES, STATEMENTS, example

pytestmark = pytest.mark.devnet
runner = CliRunner()
CASES = [(kind, 0) for kind in ONCHAIN_KINDS]
"""Each kind's first odd shape: cairo-test verifies the second ones with the same Cairo code
(tests/cairo_walk_vectors.py); the contract path they add is the same for both."""


def onchain(chain, felts):
    return chain.run(contract.verify(chain.account, chain.address, felts))


def sendable(tamperings, parts):
    """The tamperings `onchain_like` can send: all when the honest proof fits a transaction,
    else those of the honest length that change its front alone (the rest of a session's
    checks are `test_witness_opening_in_a_session`'s)."""
    if len(parts.flat) + contract.INVOKE_OVERHEAD_FELTS <= contract.MAX_CALLDATA_FELTS:
        return tamperings
    first = len(parts.front)
    return [
        (doc, felts)
        for doc, felts in tamperings
        if len(felts) == len(parts.flat) and felts[first:] == parts.flat[first:]
    ]


def onchain_like(chain, felts, honest, max_gas=contract.MAX_L2_GAS_ESTIMATE):
    """`felts` as `cairn verify-onchain` sends them: one transaction if they fit, else a
    session cut where the honest proof's parts are cut (a tampering of the same length);
    `max_gas` as `contract.verify_parts`'."""
    fits = len(felts) + contract.INVOKE_OVERHEAD_FELTS <= contract.MAX_CALLDATA_FELTS
    if fits and max_gas == contract.MAX_L2_GAS_ESTIMATE:
        return onchain(chain, felts)
    cuts = list(accumulate([len(honest.front), *map(len, honest.steps)]))
    assert cuts[-1] == len(felts)
    steps, walk = [felts[a:b] for a, b in pairwise(cuts)], len(honest.walk)
    parts = dataclasses.replace(
        honest, front=felts[: cuts[0]], trees=steps[walk:], walk=steps[:walk]
    )
    return chain.run(contract.verify_parts(chain.account, chain.address, parts, max_gas=max_gas))


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_honest_proofs_accepted_by_both(chain, kind, index):
    """attn's proofs (over one transaction's calldata: its witness opening) go in sessions."""
    parts = calldata.encode_parts(example(kind, index))
    felts = parts.flat
    assert registry.contract_check(felts, {}) is None
    verdict = onchain_like(chain, felts, parts)
    assert verdict.accepted, verdict.reason
    if len(verdict.transactions) == 1:
        assert verdict.proof_hash == hash_many(felts)
    assert all(t.calldata_felts <= contract.MAX_CALLDATA_FELTS for t in verdict.transactions)
    assert verdict.io_hash == registry.io_hash(felts)
    record = chain.run(registry.get_proof(chain.accounts[1], chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(NO_MODEL, verdict.io_hash, KIND_WALK)


def test_range_walk_certifies_declarations(chain):
    """A range walk over committed weights certifies each weight's declaration once its
    openings verify on chain (here in a session: the keys travel in its state), under the key
    Python computes (`certified.declaration_key`): none before, every one after. Over public
    weights it certifies nothing. (Shape 1: the CLI case commits shape 0's weights.)"""
    proof = example("range", 1, committed=True)
    keys = certified_keys(proof.statement)
    assert len(keys) == len(proof.statement.committed) > 1

    def certified(key: int) -> bool:
        return chain.run(registry.is_certified(chain.accounts[1], chain.address, key))

    assert not any(map(certified, keys))
    parts = calldata.encode_parts(proof)
    verdict = onchain_like(chain, parts.flat, parts)
    assert verdict.accepted, verdict.reason
    assert all(map(certified, keys))
    assert certified_keys(example("range", 1).statement) == []


@pytest.mark.parametrize("kind", ONCHAIN_KINDS)
def test_tampered_proofs_rejected_alike(chain, kind):
    """A sample of the generated Cairo tests' tamperings (all of them run in cairo-test),
    here through a real transaction; attn's, in a session, those of the honest length that
    change its first transaction (the walk and its softmax: the witness trees' own checks are
    `test_witness_opening_in_a_session`'s)."""
    proof = example(kind)
    parts = calldata.encode_parts(proof)
    tamperings = sendable(list(tampered_felts(proof)), parts)
    for doc, felts in tamperings[:: max(1, len(tamperings) // 6)]:
        check = registry.contract_check(felts, {})
        verdict = onchain_like(chain, felts, parts)
        assert verdict.accepted == (check is None), doc
        assert verdict.reason == check, (doc, check, verdict.reason)


def _register(chain, model_id, proof):
    """Register model `model_id` with the proof's committed weights, in name order."""
    committed = proof.statement.committed
    entries = [f for n in sorted(committed) for f in calldata.commitment_entry(committed[n])]
    chain.run(registry.register_model(chain.account, chain.address, model_id, CONFIG_HASH, entries))
    return registry.Model(CONFIG_HASH, tuple(entries))


SESSION_MODEL = 0x7A3
"""The model the bound session's qkv weights are registered as (no other test uses it)."""


def _bound_qkv():
    st, data = commit_weights(STATEMENTS["qkv"](*SHAPES["qkv"][0]), POSEIDON_PARAMS)
    ranks = {name: i for i, name in enumerate(sorted(st.committed))}
    st = dataclasses.replace(st, binding=ModelBinding(SESSION_MODEL, CONFIG_HASH, ranks))
    return prove_walk(LAYERS["qkv"], st, data)


@pytest.mark.parametrize("bound", [False, True])
def test_committed_weights_in_a_session(chain, bound):
    """qkv's committed weights (Poseidon) forced into a session by a small calldata limit,
    bound to a registered model or not: accepted (the state Python rebuilds between the steps
    is the contract's, model id included), every transaction within the limit, and a tampered
    last tree part refused in the last step with Python's verdict. The first transaction
    carries one of the first group's three trees (W_k's), so the next starts inside the group
    with its partial sums."""
    proof = example("qkv", 0, committed=True)
    models = {}
    if bound:
        proof = _bound_qkv()
        models = {SESSION_MODEL: _register(chain, SESSION_MODEL, proof)}
    parts = calldata.encode_parts(proof)
    limit = len(parts.front) + contract.OPEN_OVERHEAD_FELTS + 8
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, parts, limit))
    assert verdict.accepted, verdict.reason
    assert len(verdict.transactions) > 1
    assert all(t.calldata_felts <= limit for t in verdict.transactions)
    first = verdict.transactions[0].calldata_felts - len(parts.front) - contract.OPEN_OVERHEAD_FELTS
    assert first == len(parts.trees[0]) and len(parts.trees) == 6  # three weights, two layers
    assert verdict.io_hash == registry.io_hash(parts.flat)
    assert verdict.model_id == (SESSION_MODEL if bound else NO_MODEL)
    last = list(parts.trees[-1])
    last[1] ^= 1 << 40
    bad = calldata.CalldataParts(parts.front, [*parts.trees[:-1], last])
    check = registry.contract_check(bad.flat, models)
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, bad, limit))
    assert check is not None and not verdict.accepted and verdict.reason == check


def test_witness_opening_in_a_session(chain):
    """attn with v and o committed (Poseidon) and its witness opening (Blake2s): a session
    whose trees are the committed tensors' opening's, then the witness opening's. With a
    limit that lets a step carry one large tree it stops after the committed opening, then
    inside the witness opening's fold groups and at their ends; each state Python rebuilds is
    the one the contract stored. With the default limit the first transaction spans both
    openings, and a tampered last witness tree is refused in the last step with Python's
    verdict."""
    proof = example("attn", 0, io=True)
    parts = calldata.encode_parts(proof)
    assert proof.opening is not None and proof.witness_opening is not None
    limit = max(map(len, parts.trees)) + 700
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, parts, limit))
    assert verdict.accepted, verdict.reason
    assert len(verdict.transactions) >= len([t for t in parts.trees if len(t) > 700])
    assert all(t.calldata_felts <= limit for t in verdict.transactions)
    last = list(parts.trees[-1])
    last[1] ^= 1 << 40
    bad = calldata.CalldataParts(parts.front, [*parts.trees[:-1], last])
    check = registry.contract_check(bad.flat, {})
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, bad))
    assert check is not None and not verdict.accepted and verdict.reason == check
    assert len(verdict.transactions) > 1


def _bound(binding):
    """posenc's first example, its table committed and bound by `binding`, proven honestly."""
    st = STATEMENTS["posenc"](*SHAPES["posenc"][0])
    st, data = commit_weights(st, POSEIDON_PARAMS)
    st = dataclasses.replace(st, binding=binding)
    return encode_walk(prove_walk(LAYERS["posenc"], st, data))


def test_a_bound_walk_is_recorded_with_its_model_and_checked_against_the_registry(chain):
    """Bound to model MODEL_ID: refused while the model is unknown, accepted and recorded
    with the model once registered; honest proofs of the same weights bound to a model
    registered with other weights, to another config hash or to a weight index the model does
    not have are refused with the contract's named checks (after verification, which they
    pass: the registry is checked last)."""
    proof = example("posenc", 0, committed=True, bound=True)
    felts = encode_walk(proof)
    models = {}
    assert registry.contract_check(felts, models) == "registry.unknown_model"
    assert onchain(chain, felts).reason == "registry.unknown_model"
    models[MODEL_ID] = _register(chain, MODEL_ID, proof)
    assert registry.contract_check(felts, models) is None
    verdict = onchain(chain, felts)
    assert verdict.accepted and verdict.model_id == MODEL_ID, verdict.reason
    record = chain.run(registry.get_proof(chain.accounts[1], chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(MODEL_ID, registry.io_hash(felts), KIND_WALK)
    models[0x7A2] = _register(chain, 0x7A2, example("posenc", 1, committed=True))  # other weights
    binding = proof.statement.binding
    for other, check in (
        (dataclasses.replace(binding, model_id=0x7A2), "registry.commitment"),
        (dataclasses.replace(binding, config_hash=CONFIG_HASH + 1), "registry.config"),
        (dataclasses.replace(binding, weights={"p": 5}), "registry.weight"),
    ):
        tampered = _bound(other)
        assert registry.contract_check(tampered, models) == check
        assert onchain(chain, tampered).reason == check


def test_cli_prove_then_verify_onchain(chain, tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    url = chain.url
    assert runner.invoke(app, ["deploy", "--rpc", url]).exit_code == 0
    good = tmp_path / "posenc.json"
    args = ["prove", "posenc", "--seq", "5", "--context", "12", "--embed", "3"]
    result = runner.invoke(app, [*args, "--out", str(good)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify-onchain", str(good), "--rpc", url])
    assert result.exit_code == 0, result.output
    assert "accepted on chain" in result.output and "L2 gas" in result.output
    proof = proof_file.load(good)
    siblings = [*proof.layer.siblings[:-1], proof.layer.siblings[-1] + proof.layer.x_value]
    bad = tmp_path / "bad.json"
    tampered = dataclasses.replace(proof, layer=dataclasses.replace(proof.layer, siblings=siblings))
    proof_file.save(tampered, bad)
    offchain = runner.invoke(app, ["verify", str(bad)])
    result = runner.invoke(app, ["verify-onchain", str(bad), "--rpc", url])
    assert offchain.exit_code == 1 and result.exit_code == 1, result.output
    assert "walk.weight_claim" in offchain.output and "walk.weight_claim" in result.output
    felts = json.loads(runner.invoke(app, ["calldata", str(good)]).stdout)
    assert [int(f, 16) for f in felts[:2]] == [3, KIND_WALK]


def test_cli_bind_register_and_verify(chain, tmp_path, monkeypatch):
    """`cairn prove qkv --commit-weights --model-id` → `cairn register-model --proof` →
    `cairn verify-onchain`: recorded with the model."""
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    path = tmp_path / "qkv.json"
    args = ["prove", "qkv", "--seq", "3", "--embed", "5", "--hidden", "2"]
    args += ["--commit-weights", "poseidon", "--model-id", "0x99", "--out", str(path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "bound to model 0x99" in result.output, result.output
    registered_then_recorded(chain, path, "0x99", 6)


def registered_then_recorded(chain, path: Path, model: str, weights: int) -> None:
    """`cairn verify-onchain` of a proof bound to `model` is refused while the model is
    unknown; `cairn register-model --proof` registers its `weights` committed weights; then it
    is accepted and recorded with the model."""
    url, address = chain.url, hex(chain.address)
    verify = ["verify-onchain", str(path), "--rpc", url, "--address", address]
    result = runner.invoke(app, verify)
    assert result.exit_code == 1 and "registry.unknown_model" in result.output
    register = ["register-model", model, "--proof", str(path), "--rpc", url, "--address", address]
    result = runner.invoke(app, register)
    assert result.exit_code == 0 and f"{weights} commitment(s)" in result.output, result.output
    result = runner.invoke(app, verify)
    recorded = f"ProofVerified(model_id={int(model, 16)}, "
    assert result.exit_code == 0 and recorded in result.output, result.output


def test_a_forged_gelu_table_is_refused_alike(chain, monkeypatch):
    """y one off the table and the prover's table side forged to match, T̃ sent to match it:
    only the pinned table's opening sees it, in Python and on chain (a session: the witness
    opening carries the 2^15-row table)."""
    parts = calldata.encode_parts(test_layer_gelu.forged_table_proof(monkeypatch))
    check = registry.contract_check(parts.flat, {})
    assert check is not None and check.startswith(("pcs.", "merkle."))
    verdict = onchain_like(chain, parts.flat, parts)
    assert not verdict.accepted and verdict.reason == check


CLI_ARGS = {
    "matmul": ["--m", "3", "--k", "5", "--n", "2"],
    "linear": ["--seq", "3", "--embed", "5", "--out-dim", "2"],
    "qkv": ["--seq", "3", "--embed", "5", "--hidden", "2"],
    "qkv-decode": ["--steps", "2", "--context", "5", "--embed", "3", "--hidden", "3"],
    "mha": ["--seq", "3", "--heads", "2", "--head-dim", "3", "--causal"],
    "posenc": ["--seq", "5", "--context", "12", "--embed", "3"],
    "attn": ["--seq", "3", "--heads", "2", "--head-dim", "2", "--causal"],
    "requant": ["--rows", "3", "--cols", "5"],
    "add": ["--rows", "3", "--cols", "5"],
    "pool": ["--seq", "5", "--dim", "3"],
    "embed": ["--seq", "5", "--vocab", "23", "--dim", "3", "--positions", "6"],
    "gelu": ["--rows", "3", "--cols", "5"],
    "layernorm": ["--seq", "3", "--dim", "5"],
    "range": ["--rows", "3", "--cols", "5", "--bits", "7"],
}
"""Small non-power-of-two shapes of every kind the contract reads."""


def _check_named(output: str) -> str:
    return re.search(r"check ([\w.]+) failed|rejected on chain: ([\w.]+)", output).group(1, 2)


CLI_CASES = [*((kind, True) for kind in ONCHAIN_KINDS), ("attn", False)]
"""Every kind with its I/O (and weights) committed, the statement on chain a few roots; attn
also public, its witness opening then the only one (the other kinds' public statements run
through the CLI in test_cli_prove_then_verify_onchain and, kind by kind, through the same
contract path in test_honest_proofs_accepted_by_both)."""


@pytest.mark.parametrize(("kind", "io"), CLI_CASES)
def test_cli_every_onchain_kind(chain, tmp_path, monkeypatch, kind, io):
    """`cairn prove <kind>` → `cairn verify-onchain` accepts; the file with one QM31 of the
    layer proof changed is rejected by `verify` and `verify-onchain` with the same check. With
    `io` (docs/claim-walk.md, "Committed tensors"), `--commit-io` and the weights committed,
    where the kind has any, leave a statement of roots, and the QM31 changed is a committed
    output's value if any."""
    assert set(CLI_ARGS) == set(ONCHAIN_KINDS)
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    weights = ["--commit-weights", "poseidon"] if LAYERS[kind].has_weights else []
    commit = ["--commit-io", "poseidon", *weights] if io else []
    result = runner.invoke(app, ["prove", kind, *CLI_ARGS[kind], *commit, "--out", str(good)])
    assert result.exit_code == 0, result.output
    doc = json.loads(good.read_text())
    spec = LAYERS[kind]
    assert not io or set(doc["statement"]["inputs"]) <= {*spec.reads, *spec.bounded}
    onchain = ["--rpc", chain.url, "--address", hex(chain.address)]
    result = runner.invoke(app, ["verify-onchain", str(good), *onchain])
    assert result.exit_code == 0 and "accepted on chain" in result.output, result.output
    qm31 = next(_qm31s(doc["proof"].get("outputs") or doc["proof"]["layer"]))
    qm31[0] = (qm31[0] + 1) % P
    bad.write_text(json.dumps(doc))
    offchain = runner.invoke(app, ["verify", str(bad)])
    result = runner.invoke(app, ["verify-onchain", str(bad), *onchain])
    assert offchain.exit_code == 1 and result.exit_code == 1, result.output
    (check, _), (_, reverted) = _check_named(offchain.output), _check_named(result.output)
    assert check == reverted, (check, reverted)


def _qm31s(node):
    """Every QM31 ([a, b, c, d]) of a JSON proof object, depth first."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _qm31s(value)
    elif isinstance(node, list):
        if len(node) == 4 and all(isinstance(x, int) for x in node):
            yield node
        else:
            for value in node:
                yield from _qm31s(value)
