"""CairnVerifier's model registry and proof records through starknet-py (docs/registry.md),
the Python definitions of the hashes the contract records, and the Python mirror of what its
`verify` checks (`contract_check`: calldata, registry binding, verifier).

The owner (fixed at deployment) registers model_id -> (config hash, weight commitments) once;
anyone reads them. Every verified proof is recorded with the model it is bound to (0: none)
and `io_hash`, a Poseidon hash of its public statement (with committed weights: their roots and
which weights of the model they are, and the public tensors).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starknet_py.net.account.account import Account
from starknet_py.net.client_errors import ClientError

from cairn.deploy.certified import expect_certified
from cairn.deploy.contract import ChainError, contract_at, revert_reason, send
from cairn.prover.channels.poseidon import hash_many
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.graph.verifier import verify_openings
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.walk.statement import NO_MODEL, ModelBinding
from cairn.prover.walk.verifier import expect_opening, open_committed, replay_layer, witness_batch
from cairn.prover.walk.witness import verify_witness
from cairn.serializer import calldata, graph_calldata, walk_calldata
from cairn.serializer.calldata import PcsOpening
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.graph_calldata import is_graph
from cairn.serializer.pcs_calldata import DIGEST_FELTS, HASHES_BY_TAG, statement_params
from cairn.serializer.walk_calldata import is_walk


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


def io_hash(felts: Sequence[int]) -> int:
    """`io_hash` of well-formed calldata: the Poseidon hash of its statement's felts
    (`calldata.io_felts`, `walk_calldata.io_felts`, `graph_calldata.io_felts`)."""
    return hash_many(calldata.io_felts(list(felts)))


def commitments_hash(commitments: Sequence[int]) -> int:
    """What `ModelRegistered` carries instead of the commitments themselves."""
    return hash_many(commitments)


def registered_entry(commitments: Sequence[int], weight: int) -> list[int]:
    """Entry number `weight` of a model's commitments (docs/registry.md: tag, root, rank,
    dims); `registry.weight` if the list holds no such entry in that format."""
    start = index = 0
    while True:
        if start >= len(commitments) or commitments[start] not in HASHES_BY_TAG:
            raise VerificationError("registry.weight", f"no commitment entry number {weight}")
        rank_at = start + 1 + DIGEST_FELTS[HASHES_BY_TAG[commitments[start]]]
        if rank_at >= len(commitments) or rank_at + 1 + commitments[rank_at] > len(commitments):
            raise VerificationError("registry.weight", f"commitment entry {index} is cut short")
        end = rank_at + 1 + commitments[rank_at]
        if index == weight:
            return list(commitments[start:end])
        start, index = end, index + 1


def check_walk_binding(
    models: Mapping[int, Model], b: ModelBinding | None, committed: Mapping[str, CommittedTensor]
) -> int:
    """A walk's (or a graph's) binding: every committed weight is its model's registered
    commitment at its index, and the model's config hash is the binding's (the contract's
    `check_walk_binding`, after `statement.binding`). Returns the model id, 0 without a
    binding."""
    if b is None:
        return NO_MODEL
    if b.model_id not in models:
        raise VerificationError("registry.unknown_model", f"model {b.model_id}")
    model = models[b.model_id]
    for name in sorted(b.weights):
        expected = calldata.commitment_entry(committed[name])
        if registered_entry(model.commitments, b.weights[name]) != expected:
            raise VerificationError("registry.commitment", f"{name} is not the model's weight")
    if b.config_hash != model.config_hash:
        raise VerificationError("registry.config", "not the model's registered config hash")
    return b.model_id


def check_walk(felts: list[int], models: Mapping[int, Model] | None) -> int:
    """The contract's walk path, in its order: the walk class reads the Serde part and
    verifies the walk; the main contract reads the openings' group parts, verifies the
    committed tensors' opening, then the witness opening, and checks the binding against the
    registry (`models`; None: not checked, as in the Cairo unit tests' `verify_walk_calldata`).
    Returns the model id."""
    front = walk_calldata.decode_walk_front(felts)
    st = front.proof.statement
    spec = LAYERS[front.layer_kind]
    channel, claims = replay_layer(spec, front.proof)
    expect_opening(st.committed, front.proof.opening)
    proof = walk_calldata.read_walk_groups(felts, front.groups_at, front.proof)
    open_committed(st.committed, claims.committed, proof.opening, channel)
    verify_witness(witness_batch(spec, st, claims.witness), proof.witness_opening, channel)
    return NO_MODEL if models is None else check_walk_binding(models, st.binding, st.committed)


def check_graph(
    felts: list[int], models: Mapping[int, Model] | None, certified: Collection[int] = ()
) -> int:
    """The contract's graph path, in its order: the graph class reads the statement and each
    part after it as it verifies the walk, up to its openings (both checked present exactly
    when due); the main contract reads the openings' group parts and verifies the committed
    tensors' opening, then the witness opening, checks the binding against the registry
    (`models`; None: neither checked, as in the Cairo unit tests), then that every declaration
    is among the `certified` keys. Returns the model id."""
    replay = graph_calldata.replay_graph_calldata(felts)
    assert replay.settled is not None
    settlement, channel, committed, witness = replay.settled
    openings = replay.reader.openings(settlement.opening, replay.witness_opening)
    g = replay.reader.statement
    verify_openings(g, *openings, channel, committed, witness)
    if models is None:
        return NO_MODEL
    model_id = check_walk_binding(models, g.binding, g.committed)
    expect_certified(g, certified)
    return model_id


def contract_check(
    felts: list[int], models: Mapping[int, Model], certified: Collection[int] = ()
) -> str | None:
    """What the contract's `verify` says of `felts` given the registered models: None if it
    accepts, else the name of the check it reverts with. The same steps in the same order:
    a layer proof's as `check_walk`, a graph proof's as `check_graph`; a PCS opening's
    calldata, then its opening."""
    try:
        if is_graph(felts):
            check_graph(felts, models, certified)
            return None
        if is_walk(felts):
            check_walk(felts, models)
            return None
        decoded = calldata.decode(felts)
        assert isinstance(decoded, PcsOpening)
        params = statement_params(decoded.statement, POSEIDON_PARAMS)
        verify_batch(decoded.statement, decoded.proof, params, Poseidon252Channel())
    except (MalformedProofError, VerificationError) as e:
        return e.check
    return None


async def _view(account: Account, address: int, name: str, **args: int) -> Any:
    """One view's single return value; a named refusal becomes RegistryError."""
    contract = await contract_at(account, address)
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
    contract = await contract_at(account, address)
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


async def is_certified(account: Account, address: int, key: int) -> bool:
    """Whether a verified range walk certified the declaration with this key
    (`certified.declaration_key`)."""
    return bool(await _view(account, address, "is_certified", key=key))


async def get_proof(account: Account, address: int, proof_hash: int) -> ProofRecord:
    """RegistryError('registry.unknown_proof') when no proof with this hash was verified."""
    record = await _view(account, address, "get_proof", proof_hash=proof_hash)
    return ProofRecord(record["model_id"], record["io_hash"], record["kind"])
