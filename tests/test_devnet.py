"""The on-chain path on a real starknet-devnet that this module starts and stops.

Python and Cairo verifiers must give the same verdict on every proof, honest or tampered;
where the Python calldata reader names a check, the contract must revert with that name.
"""

import os
import signal

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.deploy import contract, deployments, devnet, registry
from cairn.deploy.toolchain import default_toolchain
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.errors import VerificationError
from cairn.prover.matmul.instance import NO_MODEL
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.matmul.verifier import verify_matmul
from cairn.serializer import calldata, proof_file
from tests.cairo_vectors import RANGE_CASES, wrapped_instance

pytestmark = pytest.mark.devnet
runner = CliRunner()


def onchain(chain, felts):
    return chain.run(contract.verify(chain.account, chain.address, felts))


def python_verdict(felts):
    """(accepted, check) for calldata, through the Python mirror of the contract's `verify`
    (a felt 0 of 3 makes it walk calldata, as on chain)."""
    check = registry.contract_check(felts, {})
    return check is None, check


def proof_of(m, k, n, seed=0):
    rng = np.random.default_rng(seed)
    return prove_matmul(
        make_instance(rng.integers(-128, 128, (m, k)), rng.integers(-128, 128, (k, n)))
    )


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
    assert record == registry.ProofRecord(NO_MODEL, verdict.io_hash, 1)


def test_every_felt_tampered_gives_the_same_verdict(chain):
    felts = calldata.encode(proof_of(3, 5, 2, seed=4))
    for i in range(len(felts)):
        for delta in (1, 1 << 31):
            tampered = list(felts)
            tampered[i] = felts[i] + delta
            accepted, check = python_verdict(tampered)
            verdict = onchain(chain, tampered)
            assert not accepted and not verdict.accepted, (i, delta)
            assert verdict.reason == check, (i, delta, check, verdict.reason)


def test_every_proof_field_tampered_rejected_by_both(chain):
    proof = proof_of(3, 5, 2, seed=5)
    doc = proof_file.to_json_dict(proof)
    edits = [("instance", d) for d in "mkn"]
    edits += [
        ("matrix", (x, i, j))
        for x in "abc"
        for i in range(len(doc["instance"][x]))
        for j in range(len(doc["instance"][x][0]))
    ]
    edits += [("round", (r, c, q)) for r in range(3) for c in range(2) for q in range(4)]
    for kind, where in edits:
        tampered = proof_file.to_json_dict(proof)
        if kind == "instance":
            tampered["instance"][where] += 1
        elif kind == "matrix":
            x, i, j = where
            tampered["instance"][x][i][j] += 1
        else:
            r, c, q = where
            coeff = tampered["proof"]["sumcheck"]["rounds"][r][c]
            coeff[q] = (coeff[q] + 1) % (2**31 - 1)
        bad = proof_file.from_json_dict(tampered)
        with pytest.raises(VerificationError):
            verify_matmul(bad)
        verdict = onchain(chain, calldata.encode(bad))
        assert not verdict.accepted, (kind, where)


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda f: f[:-3], "calldata.truncated"),
        (lambda f: [*f, 7], "calldata.extra"),
        (lambda f: [*f[:6], (2**31 - 1) << (31 * 7), *f[7:]], "calldata.limb"),
        (lambda f: [*f[:-1], f[-1] ^ (3 << 124)], "calldata.sentinel"),
        (lambda f: [1, *f[1:]], "calldata.version"),  # version 1's encoder
    ],
)
def test_malformed_calldata_reverts_with_named_reason(chain, mutate, reason):
    bad = mutate(calldata.encode(proof_of(4, 4, 4)))
    verdict = onchain(chain, bad)
    assert not verdict.accepted and verdict.reason == reason
    assert python_verdict(bad) == (False, reason)


RANGE = {name: (operands, reason) for name, _, operands, reason in RANGE_CASES}


@pytest.mark.parametrize(
    "name",
    ["wrapped_46341", "boundary", "cancelling", "heavy_row", "heavy_row_over_last", "heavy_column"],
)
def test_statement_range_on_chain(chain, name):
    """A statement whose A·B wraps mod p has an honest proof; both verifiers refuse it by
    `statement.range` ([[46341]]·[[46341]] = [[4634]] among them) and accept those at the
    bound, through the contract's sufficient bound or its exact decision."""
    operands, reason = RANGE[name]
    felts = calldata.encode(prove_matmul(wrapped_instance(*operands)))
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
    doc["instance"]["c"][0][0] += 1
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
