"""The on-chain path on a real starknet-devnet that this module starts and stops.

Python and Cairo verifiers must give the same verdict on every proof, honest or tampered;
where the Python calldata reader names a check, the contract must revert with that name.
"""

import os
import signal

import pytest
from typer.testing import CliRunner

from cairn import examples
from cairn.cli import app
from cairn.deploy import contract, deployments, devnet, registry
from cairn.deploy.toolchain import default_toolchain
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.fields import P
from cairn.prover.layers.registry import LAYERS
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.statement import NO_MODEL
from cairn.serializer import calldata, proof_file
from cairn.serializer.header import KIND_WALK
from cairn.serializer.serde import short_string
from tests.test_integer_soundness import matmul_statement, unchecked

pytestmark = pytest.mark.devnet
runner = CliRunner()


def onchain(chain, felts):
    return chain.run(contract.verify(chain.account, chain.address, felts))


def python_verdict(felts):
    """(accepted, check) for calldata, through the Python mirror of the contract's `verify`."""
    check = registry.contract_check(felts, {})
    return check is None, check


def proof_of(m, k, n, seed=0):
    return prove_walk(LAYERS["matmul"], examples.matmul_example(m, k, n, seed))


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 5, 2), (8, 8, 8), (17, 9, 5), (32, 64, 16)])
def test_honest_proofs_accepted_by_both(chain, shape):
    felts = calldata.encode(proof_of(*shape))
    assert python_verdict(felts) == (True, None)
    verdict = onchain(chain, felts)
    assert verdict.accepted, verdict.reason
    assert verdict.proof_hash == hash_many(felts)
    assert verdict.io_hash == registry.io_hash(felts)
    assert verdict.model_id == NO_MODEL
    assert verdict.l2_gas and verdict.l2_gas > 0
    assert chain.run(contract.is_verified(chain.account, chain.address, verdict.proof_hash))
    assert not chain.run(contract.is_verified(chain.account, chain.address, verdict.proof_hash + 1))
    record = chain.run(registry.get_proof(chain.accounts[1], chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(NO_MODEL, verdict.io_hash, KIND_WALK)


def test_every_felt_tampered_gives_the_same_verdict(chain):
    """Each felt of a matmul's calldata +1 (even offsets) or +2^31 (odd: a limb past p)."""
    felts = calldata.encode(proof_of(3, 5, 2, seed=4))
    for i in range(len(felts)):
        delta = 1 << 31 if i % 2 else 1
        tampered = list(felts)
        tampered[i] = felts[i] + delta
        accepted, check = python_verdict(tampered)
        verdict = onchain(chain, tampered)
        assert not accepted and not verdict.accepted, (i, delta)
        assert verdict.reason == check, (i, delta, check, verdict.reason)


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda f: f[:-3], "calldata.serde"),
        (lambda f: [*f, 7], "calldata.extra"),
        (lambda f: _at_word(f, lambda w: w | P << (31 * 7)), "calldata.limb"),
        (lambda f: _at_qm31(f, lambda q: q ^ 3 << 124), "calldata.sentinel"),
        (lambda f: [2, *f[1:]], "calldata.version"),  # version 2 had the standalone matmul
        (lambda f: [f[0], 3, *f[2:]], "calldata.kind"),
    ],
)
def test_malformed_calldata_reverts_with_named_reason(chain, mutate, reason):
    """The first packed tensor word or QM31 of the calldata made malformed, or its header."""
    bad = mutate(calldata.encode(proof_of(4, 4, 4)))
    verdict = onchain(chain, bad)
    assert not verdict.accepted and verdict.reason == reason
    assert python_verdict(bad) == (False, reason)


def _at_word(felts, change):
    """The first tensor word (a's, after its name, rank, shape and word count) changed."""
    name = felts.index(short_string("a"))
    at = name + 2 + felts[name + 1] + 1
    return [*felts[:at], change(felts[at]), *felts[at + 1 :]]


def _at_qm31(felts, change):
    """The first felt carrying a QM31 (its sentinel 1 at bit 124) changed."""
    at = next(i for i, f in enumerate(felts) if f >> 124 == 1)
    return [*felts[:at], change(felts[at]), *felts[at + 1 :]]


RANGE = {
    "wrapped_46341": (([[46341]], [[46341]]), "statement.range"),
    "boundary": (([[32767]], [[32769]]), None),
    "second_term": (([[32767, -32767]], [[32769, 0], [0, -32769]]), None),
    "cancelling": (([[32767, -32767]], [[32769], [32769]]), "statement.range"),
}
"""(a, b) at and beyond the no-wrap bound; every edge of it runs in cairo-test
(tests/cairo_walk_vectors.py)."""


@pytest.mark.parametrize("name", list(RANGE))
def test_statement_range_on_chain(chain, name):
    """A statement whose a·b wraps mod p has an honest proof; both verifiers refuse it by
    `statement.range` ([[46341]]·[[46341]] = [[4634]] among them) and accept those at the
    bound, through the contract's sufficient bound or its exact decision."""
    operands, reason = RANGE[name]
    felts = calldata.encode(prove_walk(unchecked("matmul"), matmul_statement(*operands)))
    assert python_verdict(felts) == (reason is None, reason)
    verdict = onchain(chain, felts)
    assert verdict.accepted == (reason is None) and verdict.reason == reason


def test_cli_deploy_and_verify_onchain(chain, tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    url = chain.url
    owner = chain.accounts[1].address
    result = runner.invoke(app, ["deploy", "--rpc", url, "--owner", hex(owner)])
    assert result.exit_code == 0, result.output
    assert "already declared" in result.output
    address = deployments.lookup(url)
    assert chain.run(registry.owner(chain.account, address)) == owner
    good = tmp_path / "p.json"
    proof_file.save(proof_of(6, 10, 3), good)
    result = runner.invoke(app, ["verify-onchain", str(good), "--rpc", url])
    assert result.exit_code == 0, result.output
    assert "transaction" in result.output and "L2 gas" in result.output
    assert "ProofVerified(model_id=0, " in result.output
    doc = proof_file.to_json_dict(proof_file.load(good))
    doc["statement"]["outputs"]["c"][0][0] += 1
    bad = tmp_path / "bad.json"
    proof_file.save(proof_file.from_json_dict(doc), bad)
    result = runner.invoke(app, ["verify-onchain", str(bad), "--rpc", url])
    assert result.exit_code == 1 and "matmul.final_evaluation" in result.output
    assert runner.invoke(app, ["verify", str(bad)]).exit_code == 1


def test_calldata_over_limit_refused_before_sending(tmp_path, monkeypatch, chain):
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    big = tmp_path / "big.json"
    proof_file.save(proof_of(128, 256, 64), big)
    result = runner.invoke(app, ["verify-onchain", str(big), "--rpc", chain.url])
    assert result.exit_code == 2 and "exceeds Starknet's limit of 5000" in result.output
    with pytest.raises(contract.ChainError, match="exceeds"):
        onchain(chain, calldata.encode(proof_of(128, 256, 64)))


def test_killed_devnet_gives_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    tc = default_toolchain()
    info = devnet.start(tc, tmp_path)
    devnet.save_state(info)
    proof = tmp_path / "p.json"
    proof_file.save(proof_of(2, 2, 2), proof)
    os.killpg(info.pid, signal.SIGKILL)
    devnet.stop(info)  # reaps the killed process
    result = runner.invoke(app, ["devnet", "status"])
    assert result.exit_code == 1 and "not answering" in result.output
    for args in (
        ["verify-onchain", str(proof), "--rpc", info.url],
        [
            "verify-onchain",
            str(proof),
            "--rpc",
            info.url,
            "--account",
            "0x1",
            "--private-key",
            "0x2",
            "--address",
            "0x3",
        ],
        ["deploy", "--rpc", info.url],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert "running" in result.output


def test_cli_devnet_lifecycle(tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    assert runner.invoke(app, ["devnet", "status"]).exit_code == 1
    started = runner.invoke(app, ["devnet", "start"])
    assert started.exit_code == 0, started.output
    info = devnet.load_state()
    try:
        assert devnet.is_alive(info.url)
        assert runner.invoke(app, ["devnet", "status"]).exit_code == 0
        again = runner.invoke(app, ["devnet", "start"])
        assert again.exit_code == 0 and "already running" in again.output
        assert devnet.load_state() == info
    finally:
        stopped = runner.invoke(app, ["devnet", "stop"])
    assert stopped.exit_code == 0 and not devnet.is_alive(info.url)
    assert runner.invoke(app, ["devnet", "status"]).exit_code == 1
    assert "no devnet recorded" in runner.invoke(app, ["devnet", "stop"]).output
