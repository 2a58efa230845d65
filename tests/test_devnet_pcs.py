"""PCS openings and committed-weight matmul proofs on a real devnet (issue 5, parts 5 and 6).

Both verifiers, Python (`registry.contract_check`: the calldata reader, the registry binding,
the verifier) and the contract, accept the honest proofs and reject every tampered variant
with the same check: a wrong opening value, a tampered Merkle path, a wrong root, fewer
queries or layers than the parameters, a limb >= p, a proof against another model's
commitment. Proofs too large for one transaction are verified in sessions. The variants are
the ones the Cairo unit tests run (tests/cairo_pcs_vectors.py), here with the contract's own
parameters and on chain.
"""

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.deploy import contract, registry
from cairn.deploy.registry import contract_check
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.serializer import calldata, commitment_file, proof_file
from tests.cairo_pcs_vectors import (
    MODEL,
    Honest,
    commit_batch,
    committed_case,
    opening_cases,
    session_hash,
)

pytestmark = pytest.mark.devnet
runner = CliRunner()


@pytest.fixture(scope="module")
def committed(chain):
    """The committed-B proof of the Cairo tests, its models registered on chain."""
    case = committed_case(random.Random(5))
    for model_id, entries in case.models.items():
        chain.run(registry.register_model(chain.account, chain.address, model_id, 0, entries))
    return case


def onchain(chain, felts):
    return chain.run(contract.verify(chain.accounts[1], chain.address, felts))


def test_honest_committed_proof_accepted_by_both(chain, committed):
    felts = committed.parts.flat
    assert contract_check(felts, committed.models) is None
    verdict = onchain(chain, felts)
    assert verdict.accepted, verdict.reason
    assert (verdict.model_id, verdict.proof_hash) == (MODEL, hash_many(felts))
    assert verdict.io_hash == registry.io_hash(felts)
    record = chain.run(registry.get_proof(chain.account, chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(MODEL, verdict.io_hash, calldata.KIND_COMMITTED_MATMUL)


def test_tampered_committed_proofs_rejected_alike(chain, committed):
    """Every variant: registry binding, statement, sum-check, B's opening."""
    assert {t.reason for t in committed.tampers} >= {
        "registry.unknown_model",
        "registry.weight",
        "registry.commitment",
        "matmul.final_evaluation",
        "pcs.claim",
        "pcs.layer_count",
        "pcs.query_count",
        "merkle.path",
        "calldata.limb",
    }
    for t in committed.tampers:
        assert contract_check(t.felts, committed.models) == t.reason, t.name
        verdict = onchain(chain, t.felts)
        assert not verdict.accepted and verdict.reason == t.reason, (t.name, verdict.reason)


# The Cairo unit tests run every variant of `opening_cases`; on chain, with the contract's
# parameters, these (one per kind of fault the issue names, and the malicious provers).
ON_CHAIN = {
    "wrong_value", "wrong_value_merged", "wrong_root", "other_commitment", "layer_root",
    "fewer_queries_opened", "fewer_queries_prover", "fewer_layers", "fold_round_count",
    "tampered_path", "leaf_limb_p", "layer_leaf_limb_p", "nonce_wrong", "bad_layer",
    "false_claim",
}  # fmt: skip


def test_openings_with_the_contract_parameters(chain):
    """Kind 2: an aligned opening and a merged batch of five polynomials accepted; each
    fault refused with the same check name on both sides."""
    honest, tampers = opening_cases(random.Random(6), POSEIDON_PARAMS, 9)
    assert ON_CHAIN <= {t.name for t in tampers}
    for case in honest.values():
        assert contract_check(case.felts, {}) is None
        verdict = onchain(chain, case.felts)
        assert verdict.accepted, verdict.reason
        assert verdict.io_hash == registry.io_hash(case.felts)
    for t in (t for t in tampers if t.name in ON_CHAIN):
        assert contract_check(t.felts, {}) == t.reason, t.name
        verdict = onchain(chain, t.felts)
        assert not verdict.accepted and verdict.reason == t.reason, (t.name, verdict.reason)


def test_sessions(chain, committed):
    """The committed proof (front 62 felts, group parts 209, 66, 6) forced into a session by
    a calldata limit of 260 felts: the front alone, then part 1, then parts 2 and 3 with the
    ~30-felt state. Accepted and recorded under the chained hash; a tampered last part is
    refused in the last step with the one-shot verdict."""
    parts = committed.parts
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, parts, 260))
    assert verdict.accepted, verdict.reason
    assert [t.calldata_felts <= 260 for t in verdict.transactions] == [True] * 3
    assert verdict.model_id == MODEL and verdict.io_hash == registry.io_hash(parts.flat)
    assert verdict.proof_hash == session_hash(
        [parts.front, parts.groups[0], parts.groups[1] + parts.groups[2]]
    )
    assert chain.run(contract.is_verified(chain.account, chain.address, verdict.proof_hash))
    last = list(parts.groups[-1])
    last[1] ^= 1 << 40  # a value of the last layer's first leaf
    bad = calldata.CalldataParts(parts.front, [*parts.groups[:-1], last])
    assert contract_check(bad.flat, committed.models) == "merkle.path"
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, bad, 260))
    assert not verdict.accepted and verdict.reason == "merkle.path"
    assert len(verdict.transactions) == 2  # open and part 1 went through; the last did not


def test_opening_of_2_16_values_in_one_transaction(chain):
    """The issue's on-chain figure: a 2^16 opening is one transaction within mainnet's
    limits (calldata <= 5,000 felts, L2 gas <= 8·10^8)."""
    side = commit_batch(random.Random(7), POSEIDON_PARAMS, [16], [1], True)
    case = Honest.prove(POSEIDON_PARAMS, *side)
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, case.parts))
    assert verdict.accepted, verdict.reason
    (tx,) = verdict.transactions  # one transaction, not a session
    assert tx.calldata_felts <= contract.MAX_CALLDATA_FELTS
    assert tx.l2_gas <= contract.MAX_L2_GAS_ESTIMATE


def test_cli_register_and_verify_committed(chain, tmp_path, monkeypatch):
    """`cairn commit` file → `cairn register-model` → `cairn verify-onchain --model-id`."""
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    url = chain.url
    rng = np.random.default_rng(3)
    inst = make_instance(rng.integers(-128, 128, (3, 8)), rng.integers(-128, 128, (8, 8)))
    tensor, data = commit_tensor(inst.b, POSEIDON_PARAMS)
    commitment_file.save(tensor, tmp_path / "b.commit.json")
    proof_file.save(prove_matmul(inst, data), tmp_path / "p.json")
    address = hex(chain.address)
    result = runner.invoke(
        app, ["register-model", "0x77", str(tmp_path / "b.commit.json"), "--rpc", url,
              "--address", address],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    verify = ["verify-onchain", str(tmp_path / "p.json"), "--rpc", url, "--address", address]
    result = runner.invoke(app, [*verify, "--model-id", "0x77"])
    assert result.exit_code == 0, result.output
    assert "ProofVerified(model_id=119, " in result.output
    result = runner.invoke(app, [*verify, "--model-id", "0x77", "--weight", "1"])
    assert result.exit_code == 1 and "registry.weight" in result.output
    result = runner.invoke(app, verify)
    assert result.exit_code == 2 and "--model-id" in result.output
