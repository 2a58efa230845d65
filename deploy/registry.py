"""CairnVerifier's model registry and proof records through starknet-py (docs/registry.md),
and the Python definitions of the hashes the contract records.

The owner (fixed at deployment) registers model_id -> (config hash, weight commitments) once;
anyone reads them. Every verified proof is recorded with the model it is bound to (0: none,
the public matmul) and `io_hash`, a Poseidon hash of its public input and output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from starknet_py.contract import Contract
from starknet_py.net.account.account import Account
from starknet_py.net.client_errors import ClientError

from cairn.deploy.contract import ChainError, revert_reason, send
from cairn.prover.channels.poseidon import M31_PER_FELT, hash_many

NO_MODEL = 0  # the model id of proofs bound to no model; never registrable


class RegistryError(ChainError):
    """The contract refused a registry call; `reason` is its named revert reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"refused by the contract: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class Model:
    config_hash: int
    commitments: tuple[int, ...]


@dataclass(frozen=True)
class ProofRecord:
    model_id: int
    io_hash: int
    kind: int


def matmul_io_hash(felts: Sequence[int]) -> int:
    """`io_hash` of well-formed matmul calldata: the Poseidon hash of its statement, the felts
    from m up to C's last word (m, k, n and the three length-prefixed packed matrices)."""
    m, k, n = felts[2:5]
    words = sum(-(-count // M31_PER_FELT) for count in (m * k, k * n, m * n))
    return hash_many(felts[2 : 2 + 3 + 3 + words])


def commitments_hash(commitments: Sequence[int]) -> int:
    """What `ModelRegistered` carries instead of the commitments themselves."""
    return hash_many(commitments)


async def _contract(account: Account, address: int) -> Contract:
    return await Contract.from_address(address, provider=account)


async def _view(account: Account, address: int, name: str, **args: int) -> Any:
    """One view's single return value; a named refusal becomes RegistryError."""
    contract = await _contract(account, address)
    try:
        (result,) = await contract.functions[name].call(**args)
    except ClientError as e:
        raise RegistryError(revert_reason(e)) from None
    return result


async def register_model(
    account: Account,
    address: int,
    model_id: int,
    config_hash: int,
    commitments: Sequence[int],
) -> int:
    """Invoke `register_model` from `account` (the owner); returns the transaction hash."""
    contract = await _contract(account, address)
    call = contract.functions["register_model"].prepare_invoke_v3(
        model_id=model_id, config_hash=config_hash, commitments=list(commitments)
    )
    sent = await send(account, call)
    if sent.reason is not None:
        raise RegistryError(sent.reason)
    assert sent.tx_hash is not None
    return sent.tx_hash


async def owner(account: Account, address: int) -> int:
    return await _view(account, address, "owner")


async def is_registered(account: Account, address: int, model_id: int) -> bool:
    return bool(await _view(account, address, "is_registered", model_id=model_id))


async def get_model(account: Account, address: int, model_id: int) -> Model:
    """RegistryError('registry.unknown_model') when `model_id` is not registered."""
    model = await _view(account, address, "get_model", model_id=model_id)
    return Model(model["config_hash"], tuple(model["commitments"]))


async def get_proof(account: Account, address: int, proof_hash: int) -> ProofRecord:
    """RegistryError('registry.unknown_proof') when no proof with this hash was verified."""
    record = await _view(account, address, "get_proof", proof_hash=proof_hash)
    return ProofRecord(record["model_id"], record["io_hash"], record["kind"])
