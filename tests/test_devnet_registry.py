"""The model registry of CairnVerifier on a real devnet, through cairn.deploy.registry.

Account #0 deploys the contract and owns its registry; account #1 is anyone else.
"""

import pytest
from starknet_py.hash.selector import get_selector_from_name

from cairn.deploy import contract, registry
from cairn.deploy.registry import Model, RegistryError
from cairn.prover.walk.statement import NO_MODEL

pytestmark = pytest.mark.devnet

COMMITMENTS = (0x1234, 2**251 + 17 * 2**192, 7)


def register(chain, account, model_id, config_hash=0xC0FFEE, commitments=COMMITMENTS):
    return chain.run(
        registry.register_model(account, chain.address, model_id, config_hash, commitments)
    )


def refusal(chain, account, model_id, **kwargs):
    with pytest.raises(RegistryError) as e:
        register(chain, account, model_id, **kwargs)
    return e.value.reason


def test_deployer_is_owner(chain):
    assert chain.run(registry.owner(chain.accounts[1], chain.address)) == chain.account.address


def test_owner_registers_and_anyone_queries(chain):
    owner, stranger = chain.accounts
    assert not chain.run(registry.is_registered(stranger, chain.address, 1))
    tx_hash = register(chain, owner, 1)
    assert chain.run(registry.is_registered(stranger, chain.address, 1))
    model = chain.run(registry.get_model(stranger, chain.address, 1))
    assert model == Model(0xC0FFEE, COMMITMENTS)
    receipt = chain.run(owner.client.get_transaction_receipt(tx_hash))
    (event,) = [e for e in receipt.events if e.from_address == chain.address]
    assert event.keys == [get_selector_from_name("ModelRegistered"), 1]
    assert event.data == [0xC0FFEE, registry.commitments_hash(COMMITMENTS)]


def test_non_owner_refused(chain):
    stranger = chain.accounts[1]
    assert refusal(chain, stranger, 2) == "registry.not_owner"
    assert not chain.run(registry.is_registered(stranger, chain.address, 2))


def test_re_registration_refused(chain):
    owner, stranger = chain.accounts
    register(chain, owner, 3)
    assert refusal(chain, owner, 3, commitments=(1,)) == "registry.exists"
    assert refusal(chain, stranger, 3, commitments=(1,)) == "registry.not_owner"
    model = chain.run(registry.get_model(stranger, chain.address, 3))
    assert model == Model(0xC0FFEE, COMMITMENTS)


def test_malformed_registrations_refused(chain):
    owner = chain.account
    assert refusal(chain, owner, NO_MODEL) == "registry.model_id_zero"
    assert refusal(chain, owner, 4, commitments=()) == "registry.no_commitments"
    assert not chain.run(registry.is_registered(owner, chain.address, 4))


def test_unknown_model_and_proof_refused(chain):
    stranger = chain.accounts[1]
    with pytest.raises(RegistryError) as e:
        chain.run(registry.get_model(stranger, chain.address, 999))
    assert e.value.reason == "registry.unknown_model"
    with pytest.raises(RegistryError) as e:
        chain.run(registry.get_proof(stranger, chain.address, 12345))
    assert e.value.reason == "registry.unknown_proof"


def test_owner_given_at_deployment(chain):
    deployer, owner = chain.accounts
    dep = chain.run(contract.declare_and_deploy(deployer, chain.artifacts, owner=owner.address))
    assert not dep.declared_now
    assert chain.run(registry.owner(deployer, dep.address)) == owner.address
    with pytest.raises(RegistryError) as e:
        chain.run(registry.register_model(deployer, dep.address, 1, 0, COMMITMENTS))
    assert e.value.reason == "registry.not_owner"
    chain.run(registry.register_model(owner, dep.address, 1, 0, COMMITMENTS))
    assert chain.run(registry.get_model(deployer, dep.address, 1)) == Model(0, COMMITMENTS)


def test_zero_owner_and_missing_contract_are_chain_errors(chain):
    """The constructor's refusal and a node's 'no such contract' reach users as ChainError
    (a clear message), never as a raw client traceback."""
    with pytest.raises(contract.ChainError, match="registry.zero_owner"):
        chain.run(contract.declare_and_deploy(chain.account, chain.artifacts, owner=0))
    with pytest.raises(contract.ChainError, match="no contract at 0x1234"):
        chain.run(registry.owner(chain.account, 0x1234))
