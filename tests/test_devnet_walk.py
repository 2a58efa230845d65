"""Layer proofs of the claim walk on a real devnet: every kind the contract reads, at odd
shapes, accepted by both verifiers with the same record; tampered proofs rejected by both
with the same named check; and the CLI path `cairn prove <kind>` → `cairn verify-onchain`."""

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.deploy import contract, registry
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.matmul.instance import NO_MODEL
from cairn.serializer import proof_file
from cairn.serializer.walk_calldata import KIND_WALK, encode_walk
from tests.cairo_walk_vectors import CAIRO_KINDS, tampered_felts
from tests.walk_examples import SHAPES, example

pytestmark = pytest.mark.devnet
runner = CliRunner()
CASES = [(kind, i) for kind in CAIRO_KINDS for i in range(len(SHAPES[kind]))]


def onchain(chain, felts):
    return chain.run(contract.verify(chain.account, chain.address, felts))


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_honest_proofs_accepted_by_both(chain, kind, index):
    felts = encode_walk(example(kind, index))
    assert registry.contract_check(felts, {}) is None
    verdict = onchain(chain, felts)
    assert verdict.accepted, verdict.reason
    assert verdict.proof_hash == hash_many(felts)
    assert verdict.io_hash == registry.io_hash(felts)
    record = chain.run(registry.get_proof(chain.accounts[1], chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(NO_MODEL, verdict.io_hash, KIND_WALK)


@pytest.mark.parametrize("kind", CAIRO_KINDS)
def test_tampered_proofs_rejected_alike(chain, kind):
    """A sample of the generated Cairo tests' tamperings (all of them run in cairo-test),
    here through a real transaction."""
    tamperings = list(tampered_felts(example(kind)))
    for doc, felts in tamperings[:: max(1, len(tamperings) // 6)]:
        check = registry.contract_check(felts, {})
        verdict = onchain(chain, felts)
        assert verdict.accepted == (check is None), doc
        assert verdict.reason == check, (doc, check, verdict.reason)


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


def test_cli_refuses_kinds_not_on_chain(chain, tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    path = tmp_path / "add.json"
    result = runner.invoke(app, ["prove", "add", "--rows", "2", "--cols", "3", "--out", str(path)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify-onchain", str(path), "--rpc", chain.url])
    assert result.exit_code == 2 and "not verified on chain yet" in result.output
