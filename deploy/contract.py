"""Declare, deploy, invoke and call the CairnVerifier contract with starknet-py.

Each function is async; the CLI runs them with asyncio.run. Fees and L2 gas are read from
receipts. A call the contract rejects is caught at fee estimation, so no transaction is
sent for it and its revert reason is reported. A proof whose calldata does not fit one
transaction is verified in a session (`verify_parts`: open_session, then continue_session
until the last group; docs/cairo-verifier.md, "Sessions"). The model registry's calls are in
`cairn.deploy.registry`.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import aiohttp
from starknet_py.common import create_sierra_compiled_contract
from starknet_py.contract import Contract, ContractFunction, PreparedFunctionInvokeV3
from starknet_py.hash import hash_method, sierra_class_hash
from starknet_py.hash import transaction as transaction_hash
from starknet_py.hash.selector import get_selector_from_name
from starknet_py.hash.sierra_class_hash import compute_sierra_class_hash
from starknet_py.net.account.account import Account
from starknet_py.net.client_errors import ClientError
from starknet_py.net.client_models import EstimatedFee, TransactionReceipt
from starknet_py.net.full_node_client import FullNodeClient
from starknet_py.net.signer.key_pair import KeyPair

from cairn.deploy.build import Artifacts, ClassArtifacts
from cairn.deploy.sessions import session_state, transactions
from cairn.prover.channels.poseidon import hash_many
from cairn.serializer import calldata
from cairn.serializer.calldata import CalldataParts
from cairn.serializer.errors import MalformedProofError

MAX_CALLDATA_FELTS = 5_000  # Starknet's per-transaction limit; devnet does not enforce it
INVOKE_OVERHEAD_FELTS = 5  # __execute__: n_calls, to, selector, calldata_len, span length
# open_session(proof, staged): the invoke's 4, the span length and the flag
OPEN_OVERHEAD_FELTS = 6
# continue_session(session_id, state, kept, parts): the invoke's 4, the id and three span lengths
STEP_OVERHEAD_FELTS = 8
MAX_L2_GAS_ESTIMATE = 800_000_000  # x1.5 margin stays under the gateway's 1.2e9 bound
STAGE_FELTS = 1_500
"""Felts a `stage` transaction stores: a stored felt costs ≈ 4.8·10^5 L2 gas (measured on
devnet 0.8.2), so 1,500 are ≈ 7.3·10^8, and a transaction's state diff is at most 4,000 (two
a stored felt: Starknet's block bound, which devnet enforces)."""
CARRIED_STATEMENT_FELTS = 1_000
"""A model walk's statement of at most this many felts rides in its session's state while the
walk goes on, resent by each transaction (≈ 5,150 L2 gas a calldata felt); a larger one is
staged once instead (`STAGE_FELTS`, ≈ 4.8·10^5 a stored felt) so that it does not crowd every
transaction's calldata (MiniLM's encoder at 8 tokens: 4,358 felts)."""
RELAYED_NODES = 12
"""A model walk of at most this many nodes (and a carried statement) has what its verified
nodes leave — their checks and claims, ≈ 100–130 felts a node (MiniLM's attention layer at 128
tokens: 478 felts after five nodes) — relayed by the caller between its transactions
(`SessionKept`, ≈ 5,150 L2 gas a calldata felt); a larger one's session is opened `staged` and
the contract stores it (≈ 4·10^5 a stored felt)."""


# starknet-py hashes classes and transactions with poseidon_py's Python sponge (≈ 45 µs a
# permutation: 16 s of the eight classes' declarations, a tenth of a second per 5,000-felt
# invoke). Its poseidon_hash_many is Cairo's poseidon_hash_span, which the native module
# computes (prover/channels/poseidon.py; equal on every input, tests/test_deploy_hashing.py).
for _module in (hash_method, sierra_class_hash, transaction_hash):
    _module.poseidon_hash_many = hash_many  # type: ignore[attr-defined]


class ChainError(RuntimeError):
    """The node refused a transaction for a reason other than the proof itself."""


TOO_LARGE = (
    "Out of gas",
    "RunResources has no remaining steps",
    "Transaction size exceeds the maximum block capacity",
)
"""How a node says a call is beyond what it estimates: the L2 gas an estimate may use
exhausted (a Cairo panic, or the VM's own error), or more gas or state diff than a block
holds."""


class GasLimitError(ChainError):
    """A transaction's L2 gas estimate exceeds what one mainnet transaction may use (None: it
    exceeds even the node's bound for an estimate; `weight` then says what of a block the
    node counted it to need, if it said)."""

    def __init__(self, estimate: int | None, limit: int, weight: str | None = None) -> None:
        used = "beyond the node's bound" if estimate is None else str(estimate)
        super().__init__(f"estimated L2 gas {used} > {limit}: too large for one transaction")
        self.estimate = estimate
        self.weight = weight


_BOUNCER = re.compile(
    r"Max block capacity: BouncerWeights \{[^}]*?sierra_gas: (\d+)[^}]*\}, "
    r"transaction size: BouncerWeights \{[^}]*?sierra_gas: (\d+)[^}]*?receipt_l2_gas: (\d+)"
)


def block_weight(message: str) -> str | None:
    """What a node refusing a transaction as larger than a block counted it to need, from its
    message (devnet 0.8.2's bouncer weights): its Sierra gas against the block's, and its L2
    gas. A block counts a transaction's Sierra gas at several times its L2 gas for these
    contracts (docs/cairo-verifier.md, "Sessions")."""
    m = _BOUNCER.search(message)
    if m is None:
        return None
    block, sierra, l2 = (int(g) for g in m.groups())
    return f"{sierra:,} Sierra gas of a block's {block:,} ({l2:,} L2 gas)"


@dataclass(frozen=True)
class Deployment:
    class_hash: int
    address: int
    declared_now: bool


@dataclass(frozen=True)
class TxCost:
    """One executed transaction of a verification: its calldata (whole invoke) and cost."""

    tx_hash: int
    calldata_felts: int
    l2_gas: int
    fee_fri: int


@dataclass(frozen=True)
class OnchainVerdict:
    """The outcome of a verification; `tx_hash`, `l2_gas` and `fee_fri` are the last
    transaction's, resp. the totals over `transactions` (one, or a session's)."""

    accepted: bool
    reason: str | None
    tx_hash: int | None
    l2_gas: int | None
    fee_fri: int | None
    proof_hash: int | None
    io_hash: int | None = None
    model_id: int | None = None
    transactions: tuple[TxCost, ...] = ()


@dataclass(frozen=True)
class Sent:
    """One invoke: refused at estimation (`reason`, nothing sent), reverted (`reason` and a
    transaction), or executed (`reason` None)."""

    reason: str | None
    tx_hash: int | None
    receipt: TransactionReceipt | None


_CONTRACTS: weakref.WeakKeyDictionary[Account, dict[int, Contract]] = weakref.WeakKeyDictionary()


async def contract_at(account: Account, address: int) -> Contract:
    """The contract at `address`, called from `account`. Its ABI comes with the class, which
    is large (the node sends the whole Sierra program), so it is fetched once per account."""
    known = _CONTRACTS.setdefault(account, {})
    if address not in known:
        try:
            known[address] = await Contract.from_address(address, provider=account)
        except ClientError:
            raise ChainError(f"no contract at {address:#x} on this node") from None
    return known[address]


async def connect(rpc_url: str, address: str, private_key: str) -> Account:
    client = FullNodeClient(node_url=rpc_url)
    try:
        chain = await client.get_chain_id()
    except (aiohttp.ClientError, OSError) as e:
        raise ChainError(f"no answer from {rpc_url} ({e}); is the node running?") from None
    return Account(
        address=address,
        client=client,
        key_pair=KeyPair.from_private_key(int(private_key, 16)),
        chain=int(chain, 16),
    )


def revert_reason(err: Exception) -> str:
    """The contract's panic reason out of a node error: the first felt of the innermost panic
    data (`["0x6d61…"]`) read as a Cairo short string, e.g. 'matmul.final_evaluation'. An error
    that carries no panic is the node's, not the contract's: ChainError."""
    text = str(err)
    panics = re.findall(r'\[\s*"0x([0-9a-fA-F]+)"', text)
    if panics:
        raw = bytes.fromhex(panics[-1].rjust(len(panics[-1]) + len(panics[-1]) % 2, "0"))
        if raw and all(32 <= b < 127 for b in raw):
            return raw.decode()
    raise ChainError(f"the node refused the call: {text[:500]}")


async def declare_and_deploy(
    account: Account, art: Artifacts, owner: int | None = None
) -> Deployment:
    """Declare the eight classes unless the node knows them, then deploy an instance of the
    main one whose registry owner is `owner` (default: the deploying account) and which calls
    the other seven."""
    args: dict[str, int] = {"owner": account.address if owner is None else owner}
    for arg, helper in art.helpers().items():
        args[arg], _ = await _declare(account, helper)
    class_hash, declared_now = await _declare(account, art)
    abi = json.loads(art.sierra.read_text())["abi"]
    abi = json.loads(abi) if isinstance(abi, str) else abi
    try:
        deployed = await Contract.deploy_contract_v3(
            account=account,
            class_hash=class_hash,
            abi=abi,
            constructor_args=args,
            auto_estimate=True,
        )
    except ClientError as e:
        raise ChainError(f"deployment refused: {revert_reason(e)}") from None
    await deployed.wait_for_acceptance()
    return Deployment(class_hash, deployed.deployed_contract.address, declared_now)


async def _declare(account: Account, art: ClassArtifacts) -> tuple[int, bool]:
    """The class hash; whether it was declared now (False: the node knew it)."""
    sierra_text = art.sierra.read_text()
    class_hash = compute_sierra_class_hash(create_sierra_compiled_contract(sierra_text))
    try:
        await account.client.get_class_by_hash(class_hash)
        return class_hash, False
    except ClientError:
        pass
    declared = await Contract.declare_v3(
        account,
        compiled_contract=sierra_text,
        compiled_contract_casm=_hashed_casm(art.casm),
        auto_estimate=True,
    )
    await declared.wait_for_acceptance()
    return class_hash, True


def _hashed_casm(casm: Path) -> str:
    """The CASM JSON without its hints, which the compiled class hash does not cover (entry
    points and bytecode only) and starknet-py's schema cannot read: the bounded-integer
    divisions' hints carry negative immediates (docs/cairo-verifier.md, "Divisions"). The node
    compiles the Sierra itself and checks the hash."""
    return json.dumps({**json.loads(casm.read_text()), "hints": []})


async def is_deployed(account: Account, address: int) -> bool:
    try:
        await account.client.get_class_hash_at(address)
    except ClientError:
        return False
    return True


async def send(
    account: Account, call: PreparedFunctionInvokeV3, max_gas: int = MAX_L2_GAS_ESTIMATE
) -> Sent:
    """Estimate, then invoke with a 1.5x margin and wait for the receipt. `max_gas`: the
    largest estimate sent (benchmarks raise it to measure what a proof over it would cost)."""
    estimate = await _estimate(call, max_gas)
    if isinstance(estimate, str):
        return Sent(estimate, None, None)
    return await _invoke(account, call, estimate)


async def _estimate(call: PreparedFunctionInvokeV3, max_gas: int) -> EstimatedFee | str:
    """The node's estimate of `call`, or the contract's revert reason; GasLimitError if it
    exceeds `max_gas` or what the node estimates at all."""
    try:
        estimate = await call.estimate_fee()
    except ClientError as e:
        if any(text in str(e) for text in TOO_LARGE):
            raise GasLimitError(None, max_gas, block_weight(str(e))) from e
        return revert_reason(e)
    if estimate.l2_gas_consumed > max_gas:
        raise GasLimitError(estimate.l2_gas_consumed, max_gas)
    return estimate


async def _invoke(account: Account, call: PreparedFunctionInvokeV3, estimate: EstimatedFee) -> Sent:
    sent = await call.invoke(resource_bounds=estimate.to_resource_bounds(1.5, 1.5))
    await sent.wait_for_acceptance()
    receipt = await account.client.get_transaction_receipt(sent.hash)
    reason = revert_reason(Exception(receipt.revert_reason)) if receipt.revert_reason else None
    return Sent(reason, sent.hash, receipt)


async def verify(
    account: Account, address: int, felts: list[int], max_gas: int = MAX_L2_GAS_ESTIMATE
) -> OnchainVerdict:
    """Invoke `verify(proof)`; a rejection at estimation sends nothing."""
    total = len(felts) + INVOKE_OVERHEAD_FELTS
    if total > MAX_CALLDATA_FELTS:
        raise ChainError(f"calldata of {total} felts exceeds Starknet's {MAX_CALLDATA_FELTS}")
    contract = await contract_at(account, address)
    call = contract.functions["verify"].prepare_invoke_v3(proof=felts)
    return _finished(await _run([], await send(account, call, max_gas), total, address))


def _finished(verdict: OnchainVerdict) -> OnchainVerdict:
    """A verification that executed must have emitted ProofVerified."""
    if verdict.tx_hash is not None and verdict.reason is None and not verdict.accepted:
        raise ChainError(f"transaction {verdict.tx_hash:#x} succeeded but emitted no ProofVerified")
    return verdict


def _events(receipt: TransactionReceipt, address: int, name: str) -> list[tuple[list, list]]:
    selector = get_selector_from_name(name)
    return [
        (e.keys, e.data)
        for e in receipt.events
        if e.from_address == address and e.keys[0] == selector
    ]


async def _run(done: list[TxCost], sent: Sent, felts: int, address: int) -> OnchainVerdict:
    """The verdict after `sent`, the last transaction so far (`done`: the earlier ones)."""
    if sent.receipt is None:
        return _verdict(done, False, sent.reason)
    assert sent.tx_hash is not None
    cost = TxCost(
        sent.tx_hash,
        felts,
        sent.receipt.execution_resources.l2_gas,
        sent.receipt.actual_fee.amount,
    )
    txs = [*done, cost]
    if sent.reason is not None:
        return _verdict(txs, False, sent.reason)
    # ProofVerified: keys [selector, model_id, proof_hash], data [io_hash, kind]
    events = _events(sent.receipt, address, "ProofVerified")
    if not events:
        return _verdict(txs, False, None)
    (_, model_id, proof_hash), (io_hash, _) = events[0]
    return _verdict(txs, True, None, proof_hash, io_hash, model_id)


def _verdict(
    txs: list[TxCost],
    accepted: bool,
    reason: str | None,
    proof_hash: int | None = None,
    io_hash: int | None = None,
    model_id: int | None = None,
) -> OnchainVerdict:
    last = txs[-1].tx_hash if txs else None
    gas = sum(t.l2_gas for t in txs) if txs else None
    fee = sum(t.fee_fri for t in txs) if txs else None
    return OnchainVerdict(
        accepted, reason, last, gas, fee, proof_hash, io_hash, model_id, tuple(txs)
    )


Prepare = Callable[[list[int]], tuple[PreparedFunctionInvokeV3, int]]


async def _send_trees(
    account: Account,
    trees: list[list[int]],
    budget: int,
    least: int,
    prepare: Prepare,
    max_gas: int = MAX_L2_GAS_ESTIMATE,
    first: str = "the first part",
) -> tuple[Sent, int, int]:
    """Send the call `prepare` makes of as many of `trees` (parts after the front: a model
    walk's, then the trees) as fit `budget` calldata felts and the gas limit (at least `least`
    of them; `first` names trees[0] in errors): the outcome, how
    many were sent, the call's calldata felts. A call whose estimate E is too large is retried
    with its count c cut to c·max_gas/E (at least one part fewer, and not below `least` before
    `least` is tried), or halved if the node will not estimate it at all; once a count fits,
    the counts between it and the smallest that did not are bisected until they are within an
    eighth of each other (an estimate is a whole execution: a few more, for transactions
    fuller by up to half, as a model walk's one-felt check parts need)."""
    count, room = 0, budget
    while count < len(trees) and len(trees[count]) <= room:
        room -= len(trees[count])
        count += 1
    if count < least:
        raise ChainError(
            f"{first}, {len(trees[0])} felts, does not fit the {budget} felts a transaction "
            "has beside the state"
        )
    fits: tuple[int, PreparedFunctionInvokeV3, int, EstimatedFee] | None = None
    beyond, estimate, weight = count + 1, None, None
    while count >= least and (fits is None or count > fits[0]):
        call, felts = prepare([f for t in trees[:count] for f in t])
        try:
            fee = await _estimate(call, max_gas)
        except GasLimitError as e:
            beyond, estimate, weight = count, e.estimate, e.weight
            cut = count // 2 if estimate is None else count * max_gas // estimate
            count = min(count - 1, max(least, cut))
            if fits is not None:
                count = (fits[0] + beyond) // 2
            continue
        if isinstance(fee, str):
            return Sent(fee, None, None), count, felts
        fits = (count, call, felts, fee)
        if beyond - count > max(1, count // 8):
            count = (count + beyond) // 2
    if fits is not None:
        count, call, felts, fee = fits
        return await _invoke(account, call, fee), count, felts
    needs = (
        "more L2 gas than the node lets an estimate use"
        if estimate is None
        else (f"{estimate:,} L2 gas")
    )
    if weight is not None:
        what = "the proof's verification before its first part" if least == 0 else first
        raise ChainError(f"{what} needs more than a block holds: {weight}")
    if least == 0:
        raise ChainError(
            "the proof's verification before its first part (a layer's walk, a model walk's "
            f"statement and transcript) needs {needs}, more than the {max_gas:,} one "
            "transaction may use: sessions cut only between parts (docs/cairo-verifier.md, "
            '"Sessions")'
        )
    raise ChainError(
        f"{first} needs {needs} with what its transaction reads again, more than the "
        f"{max_gas:,} one may use"
    )


async def verify_parts(
    account: Account,
    address: int,
    parts: CalldataParts,
    max_felts: int = MAX_CALLDATA_FELTS,
    max_gas: int = MAX_L2_GAS_ESTIMATE,
    progress: Callable[[int, int], None] | None = None,
    carried: int = CARRIED_STATEMENT_FELTS,
) -> OnchainVerdict:
    """Verify a proof in one transaction if it fits (calldata and gas), else in a session:
    `open_session` with the front and as many parts as fit (`parts.steps`: a model walk's
    nodes and settlement, then the trees; a model walk's statement staged after it if it goes
    on and the statement is over `carried` felts or the walk over `RELAYED_NODES` nodes), then
    `continue_session`
    with the session's state (rebuilt in Python, checked against the hash the last
    `SessionState` event carried), what it keeps (the last transaction's `SessionKept` events'
    felts, sent back) and as many parts as fit, until the contract emits
    ProofVerified (or a step is rejected, whose reason ends the session).
    `max_felts` is the calldata limit planned for (tests lower it to force sessions),
    `max_gas` the largest estimate sent (`send`); `progress`, if given, is told the parts sent
    and the transactions made after each transaction of a session; `carried` the largest
    statement the session's state carries (tests lower it to stage one)."""
    if len(parts.flat) + INVOKE_OVERHEAD_FELTS <= max_felts:
        try:
            return await verify(account, address, parts.flat, max_gas)
        except GasLimitError:
            if not parts.steps:
                raise
    budget = max_felts - OPEN_OVERHEAD_FELTS - len(parts.front)
    if budget < 0:
        raise ChainError(
            f"the statement and transcript ({len(parts.front)} felts) do not fit one "
            f"transaction of {max_felts} felts"
        )
    functions = (await contract_at(account, address)).functions
    nodes = parts.walked // 2 - 1  # each node's check and proof, the settlement, the front
    large = _statement_felts(parts) > carried or nodes > RELAYED_NODES
    staged = parts.walked > 0 and large

    def open_session(trees: list[int]) -> tuple[PreparedFunctionInvokeV3, int]:
        call = functions["open_session"].prepare_invoke_v3(
            proof=[*parts.front, *trees], staged=staged
        )
        return call, len(parts.front) + len(trees) + OPEN_OVERHEAD_FELTS

    steps = parts.steps
    sent, done, felts = await _send_trees(account, steps, budget, 0, open_session, max_gas)
    # The id is the hash of what was sent (the planner may have built larger calls after it).
    (opened,) = transactions(parts, [done])
    session_id, counts = hash_many(opened), [done]
    verdict = await _run([], sent, felts, address)
    report = progress or (lambda _parts, _txs: None)
    report(done, len(verdict.transactions))
    while sent.receipt is not None and verdict.reason is None and not verdict.accepted:
        state = _next_state(parts, counts, sent.receipt, address, session_id, staged)
        kept = _kept(sent.receipt, address, session_id)
        if staged and len(counts) == 1 and done < parts.walked:  # the walk goes on: stage it
            staging = await _stage(account, address, functions, parts, max_gas)
            verdict = replace(verdict, transactions=(*verdict.transactions, *staging))

        def step(
            trees: list[int], state: list[int] = state, kept: list[int] = kept
        ) -> tuple[PreparedFunctionInvokeV3, int]:
            call = functions["continue_session"].prepare_invoke_v3(
                session_id=session_id, state=state, kept=kept, parts=trees
            )
            return call, len(trees) + len(state) + len(kept) + STEP_OVERHEAD_FELTS

        budget = max_felts - STEP_OVERHEAD_FELTS - len(state) - len(kept)
        sent, count, felts = await _send_trees(
            account, steps[done:], budget, 1, step, max_gas, parts.describe(done)
        )
        verdict = await _run(list(verdict.transactions), sent, felts, address)
        done += count
        counts.append(count)
        report(done, len(verdict.transactions))
    return _finished(verdict)


def _statement_felts(parts: CalldataParts) -> int:
    """The length of a model walk's statement; 0 for calldata whose header does not read (the
    contract refuses its first transaction, staged or not)."""
    try:
        return len(calldata.io_felts(parts.flat))
    except MalformedProofError:
        return 0


async def _stage(
    account: Account,
    address: int,
    functions: dict[str, ContractFunction],
    parts: CalldataParts,
    max_gas: int,
) -> list[TxCost]:
    """A model walk's statement staged for the later transactions of a session opened
    `staged`, which read it from storage (`stage`, docs/cairo-verifier.md, "Sessions"),
    `STAGE_FELTS` a transaction, once its first transaction is accepted. Returns the
    transactions' costs."""
    statement = calldata.io_felts(parts.flat)
    h, costs = hash_many(statement), []
    for offset in range(0, len(statement), STAGE_FELTS):
        chunk = statement[offset : offset + STAGE_FELTS]
        call = functions["stage"].prepare_invoke_v3(
            statement_hash=h, length=len(statement), offset=offset, felts=chunk
        )
        sent = await send(account, call, max_gas)
        staged = await _run(costs, sent, len(chunk) + 3 + INVOKE_OVERHEAD_FELTS, address)
        if staged.reason is not None or sent.receipt is None:
            raise ChainError(f"staging the statement failed: {staged.reason}")
        costs = list(staged.transactions)
    return costs


def _next_state(
    parts: CalldataParts,
    counts: list[int],
    receipt: TransactionReceipt,
    address: int,
    session_id: int,
    staged: bool,
) -> list[int]:
    """The state the next `continue_session` sends back: Python rebuilds it (the event only
    carries its hash, docs/cairo-verifier.md) and checks it is the one the contract stored,
    for the session it continues."""
    # SessionState: keys [selector, session_id], data [state_hash]
    ((_, event_id), (state_hash,)), *_ = _events(receipt, address, "SessionState")
    state = session_state(parts, counts, staged)
    if event_id != session_id or state is None or hash_many(state) != state_hash:
        raise ChainError("the contract's session state is not the one the Python mirror computes")
    return state


def _kept(receipt: TransactionReceipt, address: int, session_id: int) -> list[int]:
    """What the session keeps after the transaction of `receipt`: its `SessionKept` events'
    felts, in order (none if it emitted none), which the next `continue_session` sends back."""
    kept = []
    # SessionKept: keys [selector, session_id], data [length, felts…]
    for (_, event_id), (length, *felts) in _events(receipt, address, "SessionKept"):
        if event_id != session_id or length != len(felts):
            raise ChainError("a SessionKept event is not of the session it continues")
        kept.extend(felts)
    return kept


async def is_verified(account: Account, address: int, proof_hash: int) -> bool:
    contract = await contract_at(account, address)
    (result,) = await contract.functions["is_verified"].call(proof_hash=proof_hash)
    return bool(result)
