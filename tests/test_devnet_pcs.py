"""PCS openings and committed-weight matmuls (layer proofs bound to a registered model) on a
real devnet (docs/cairo-verifier.md).

Both verifiers, Python (`registry.contract_check`: the calldata reader, the verifier, the
registry binding) and the contract, accept the honest proofs and reject every tampered variant
with the same check: a wrong opening value, a tampered Merkle path, a wrong root, fewer
queries or layers than the parameters, a limb >= p, a proof against another model's
commitment, another config hash, the same body presented as another model's or weight's with
the same root. Records bind which weight a product is with. Proofs too large for one
transaction are verified in sessions, which belong to the account that opened them and whose
events stay within Starknet's 300 data felts for the largest statement the reader accepts.
The variants are the ones the Cairo unit tests run (tests/cairo_pcs_vectors.py), here with the
contract's own parameters and on chain.
"""

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from cairn.cli import app
from cairn.deploy import contract, registry
from cairn.deploy.registry import Model, contract_check
from cairn.deploy.sessions import Sessions, proof_hash, session_state, transactions
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.errors import VerificationError
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.params import BLAKE2S_PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.prover.walk.prover import prove_walk
from cairn.serializer import calldata
from cairn.serializer.header import KIND_WALK
from cairn.serializer.serde import short_string
from tests.cairo_pcs_vectors import (
    MATMUL,
    MODEL,
    Honest,
    bind,
    commit_batch,
    committed,
    committed_case,
    opening_cases,
)

pytestmark = pytest.mark.devnet
runner = CliRunner()


@pytest.fixture(scope="module")
def case(chain):
    """The committed-B proof of the Cairo tests, its models registered on chain."""
    made = committed_case(random.Random(5))
    for model_id, model in made.models.items():
        chain.run(
            registry.register_model(
                chain.account, chain.address, model_id, model.config_hash, model.commitments
            )
        )
    return made


def onchain(chain, felts):
    return chain.run(contract.verify(chain.accounts[1], chain.address, felts))


def test_honest_committed_proof_accepted_by_both(chain, case):
    felts = case.parts.flat
    assert contract_check(felts, case.models) is None
    verdict = onchain(chain, felts)
    assert verdict.accepted, verdict.reason
    assert (verdict.model_id, verdict.proof_hash) == (MODEL, hash_many(felts))
    assert verdict.io_hash == registry.io_hash(felts)
    record = chain.run(registry.get_proof(chain.account, chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(MODEL, verdict.io_hash, KIND_WALK)
    # The same model's weight 0 is a Blake2s commitment: B opened with Blake2s trees.
    assert contract_check(case.blake2s, case.models) is None
    verdict = onchain(chain, case.blake2s)
    assert verdict.accepted, verdict.reason
    assert verdict.io_hash == registry.io_hash(case.blake2s)


def test_tampered_committed_proofs_rejected_alike(chain, case):
    """Every variant: registry binding, statement, the layer, B's opening; the same body
    presented as model 11's (which registered the same root and config) or as its other weight
    (the same root again) fails the transcript."""
    assert {"twin_model", "twin_weight"} <= {t.name for t in case.tampers}
    assert {t.reason for t in case.tampers} >= {
        "registry.unknown_model",
        "registry.weight",
        "registry.commitment",
        "registry.config",
        "statement.binding",
        "matmul.final_evaluation",
        "pcs.claim",
        "pcs.layer_count",
        "pcs.query_count",
        "merkle.path",
        "calldata.limb",
    }
    for t in case.tampers:
        assert contract_check(t.felts, case.models) == t.reason, t.name
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


def test_blake2s_openings_with_the_contract_parameters(chain):
    """Kind 2 over Blake2s trees (the `core::blake` builtin): the aligned and merged openings
    accepted; the same faults as with Poseidon, and digests out of range, refused alike."""
    honest, tampers = opening_cases(random.Random(9), BLAKE2S_PARAMS, 9)
    chosen = ON_CHAIN | {"root_half", "layer_root_half", "sibling_half", "mixed_hashes"}
    assert chosen <= {t.name for t in tampers}
    for case in honest.values():
        assert contract_check(case.felts, {}) is None
        verdict = onchain(chain, case.felts)
        assert verdict.accepted, verdict.reason
        assert verdict.io_hash == registry.io_hash(case.felts)
    for t in (t for t in tampers if t.name in chosen):
        assert contract_check(t.felts, {}) == t.reason, t.name
        verdict = onchain(chain, t.felts)
        assert not verdict.accepted and verdict.reason == t.reason, (t.name, verdict.reason)


def test_sessions(chain, case):
    """The committed proof (front 110 felts, group parts 195, 66, 6) forced into a session by
    a calldata limit of 260 felts: the front alone, then part 1, then parts 2 and 3 with the
    31-felt state. Accepted and recorded under the chained hash; a tampered last part is
    refused in the last step with the one-shot verdict."""
    parts = case.parts
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, parts, 260))
    assert verdict.accepted, verdict.reason
    assert [t.calldata_felts <= 260 for t in verdict.transactions] == [True] * 3
    assert verdict.model_id == MODEL and verdict.io_hash == registry.io_hash(parts.flat)
    assert verdict.proof_hash == proof_hash(transactions(parts, [0, 1, 2]))
    assert chain.run(contract.is_verified(chain.account, chain.address, verdict.proof_hash))
    last = list(parts.trees[-1])
    last[1] ^= 1 << 40  # a value of the last layer's first leaf
    bad = calldata.CalldataParts(parts.front, [*parts.trees[:-1], last])
    assert contract_check(bad.flat, case.models) == "merkle.path"
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
    """`cairn commit` file → `cairn register-model` → `cairn prove matmul --commit-b
    --model-id --weight` → `cairn verify-onchain`; B bound as a weight the model lacks is
    refused by the registry, and B committed but bound to no model is recorded as model 0."""
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    url = chain.url
    rng = np.random.default_rng(3)
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, rng.integers(-128, 128, (3, 8)))
    np.save(b, rng.integers(-128, 128, (8, 8)))
    prove = ["prove", "matmul", "--a", str(a), "--b", str(b), "--commit-b", "poseidon"]
    for name, bound in (
        ("p.json", ["--model-id", "0x77", "--weight", "0"]),
        ("p1.json", ["--model-id", "0x77", "--weight", "1"]),
        ("unbound.json", []),
    ):
        result = runner.invoke(app, [*prove, *bound, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["commit", str(b)]).exit_code == 0
    address = hex(chain.address)
    result = runner.invoke(
        app, ["register-model", "0x77", str(tmp_path / "b.commit.json"), "--rpc", url,
              "--address", address],
    )  # fmt: skip
    assert result.exit_code == 0, result.output

    def verify(name):
        args = ["verify-onchain", str(tmp_path / name), "--rpc", url, "--address", address]
        return runner.invoke(app, args)

    result = verify("p.json")
    assert result.exit_code == 0, result.output
    assert "ProofVerified(model_id=119, " in result.output
    result = verify("p1.json")
    assert result.exit_code == 1 and "registry.weight" in result.output
    result = verify("unbound.json")
    assert result.exit_code == 0 and "ProofVerified(model_id=0, " in result.output


def _register(chain, model_id, config_hash, tensors):
    entries = [f for t in tensors for f in calldata.commitment_entry(t)]
    chain.run(registry.register_model(chain.account, chain.address, model_id, config_hash, entries))
    return Model(config_hash, tuple(entries))


def test_the_record_binds_which_weight(chain):
    """W_q and W_k of the same shape in one model: the record and event of C = A·W_k name
    weight 1 through io_hash (the binding is part of the statement), which differs from the
    statement "C = A·W_q" (weight 0, the same A and C); the proof presented as weight 0 fails
    the transcript on both sides."""
    model_id, config = 0x5150, 0xC0
    rng = np.random.default_rng(11)
    a = rng.integers(-128, 128, (2, 16))
    w_q, w_k = (rng.integers(-128, 128, (16, 16)) for _ in range(2))
    tq, _ = commit_tensor(w_q, POSEIDON_PARAMS)
    st, data = committed(a, w_k, POSEIDON_PARAMS)
    models = {model_id: _register(chain, model_id, config, [tq, st.committed["b"]])}
    felts = calldata.encode(prove_walk(MATMUL, bind(st, model_id, 1, config), data))
    assert contract_check(felts, models) is None
    verdict = onchain(chain, felts)
    assert verdict.accepted, verdict.reason
    record = chain.run(registry.get_proof(chain.account, chain.address, verdict.proof_hash))
    assert record.io_hash == verdict.io_hash == registry.io_hash(felts)
    # The binding's weights: one entry, name b, index 1 (after the model id and config hash).
    at = felts.index(model_id) + 4
    assert felts[at - 4 : at + 1] == [model_id, config, 1, short_string("b"), 1]
    presented_as_q = [*felts[:at], 0, *felts[at + 1 :]]
    assert registry.io_hash(presented_as_q) != record.io_hash
    check = contract_check(presented_as_q, models)
    assert check == "matmul.final_evaluation"
    verdict = onchain(chain, presented_as_q)
    assert not verdict.accepted and verdict.reason == check


def _invoke(chain, account, name, **args):
    """One invoke from `account`: None if executed, else the contract's revert reason."""
    functions = chain.run(contract.contract_at(account, chain.address)).functions
    return chain.run(contract.send(account, functions[name].prepare_invoke_v3(**args))).reason


def test_a_session_belongs_to_its_opener(chain, case):
    """Account #1 opens a session; account #0 can neither re-send the first transaction to
    reset it nor continue it (`session.owner`, as the Python mirror says); the opener finishes
    it."""
    parts, (other, opener) = case.parts, chain.accounts
    book, counts = Sessions(), [1]
    (first,) = transactions(parts, counts)
    session_id, state = hash_many(first), session_state(parts, counts)
    assert _invoke(chain, opener, "open_session", proof=first, staged=False) is None
    book.advance(opener.address, session_id, state)
    assert chain.run(_state_hash(chain, session_id)) == hash_many(state)
    with pytest.raises(VerificationError) as reopen:
        book.check_open(other.address, session_id)
    assert _invoke(chain, other, "open_session", proof=first, staged=False) == reopen.value.check
    rest = transactions(parts, [1, 2])[1]
    with pytest.raises(VerificationError) as step:
        book.check_step(other.address, session_id, state, rest)
    args = {"session_id": session_id, "state": state, "kept": [], "parts": rest}
    assert _invoke(chain, other, "continue_session", **args) == step.value.check
    assert reopen.value.check == step.value.check == "session.owner"
    assert chain.run(_state_hash(chain, session_id)) == hash_many(state)  # untouched
    assert _invoke(chain, opener, "continue_session", **args) is None
    assert chain.run(contract.is_verified(other, chain.address, proof_hash([first, rest])))
    assert chain.run(_state_hash(chain, session_id)) == 0


async def _state_hash(chain, session_id):
    functions = (await contract.contract_at(chain.account, chain.address)).functions
    (result,) = await functions["session_state_hash"].call(session_id=session_id)
    return result


def test_session_events_are_bounded_at_the_largest_statement(chain):
    """256 polynomials, the most a statement may have: the state after the front is
    23 + 4·256 felts (and one per query block once the session stops inside the group, as it
    does here), beyond an event's 300 data felts, yet the session runs — its event carries the
    state's hash only — and is accepted in two transactions."""
    side = commit_batch(random.Random(8), POSEIDON_PARAMS, [0] * 256, [1] * 256, True)
    case = Honest.prove(POSEIDON_PARAMS, *side)
    state = session_state(case.parts, [0])
    assert state is not None and len(state) == 23 + 4 * 256 > 300
    assert contract_check(case.felts, {}) is None
    verdict = chain.run(contract.verify_parts(chain.account, chain.address, case.parts, 2700))
    assert verdict.accepted, verdict.reason
    assert len(verdict.transactions) == 2
    receipt = chain.run(
        chain.account.client.get_transaction_receipt(verdict.transactions[0].tx_hash)
    )
    events = [e for e in receipt.events if e.from_address == chain.address]
    assert [len(e.data) for e in events] == [1]  # SessionState: the state's hash
    # the first transaction carried as many of the 256 one-value trees as fit after the front
    sent = verdict.transactions[0].calldata_felts - contract.OPEN_OVERHEAD_FELTS
    count = next(
        n for n in range(257) if len(case.parts.front) + sum(map(len, case.parts.trees[:n])) == sent
    )
    assert 0 < count < 256
    assert events[0].data == [hash_many(session_state(case.parts, [count]))]
