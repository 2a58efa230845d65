"""How a session's transactions are cut (deploy/contract.py `_send_trees`) against a node
whose estimate of a call is a base plus a cost per part, and which runs out of gas (no
estimate) beyond its own bound: the real node's answers are the devnet tests'."""

import asyncio

import pytest

from cairn.deploy import contract

BASE, PER_PART, NODE_BOUND = 10**8, 10**7, 10**9


@pytest.fixture
def estimates(monkeypatch) -> list[int]:
    """The part counts the planner had estimated, in order."""
    tried: list[int] = []

    async def estimate(call: int, max_gas: int) -> int:
        tried.append(call)
        gas = BASE + PER_PART * call
        if gas > NODE_BOUND:
            raise contract.GasLimitError(None, max_gas)
        if gas > max_gas:
            raise contract.GasLimitError(gas, max_gas)
        return gas

    async def invoke(account, call: int, fee: int) -> contract.Sent:
        return contract.Sent(None, 1, None)

    monkeypatch.setattr(contract, "_estimate", estimate)
    monkeypatch.setattr(contract, "_invoke", invoke)
    return tried


def _plan(parts: int, least: int = 0, room: int = 4_000) -> tuple[int, int]:
    trees = [[i] for i in range(parts)]
    sent = contract._send_trees(None, trees, room, least, lambda felts: (len(felts), len(felts)))
    _, count, felts = asyncio.run(sent)
    return count, felts


def test_a_call_beyond_the_nodes_bound_is_halved_then_bisected(estimates):
    """500 one-felt parts (a model walk's check parts): beyond the node's bound three times
    (halved each time), then 62 fit, then the counts up to 125 bisected: within an eighth of
    the 70 that fit."""
    count, felts = _plan(500)
    assert estimates == [500, 250, 125, 62, 93, 77, 69]
    assert count == felts == 69 and BASE + PER_PART * count <= contract.MAX_L2_GAS_ESTIMATE


def test_calldata_room_bounds_the_first_try(estimates):
    assert _plan(500, room=40) == (40, 40) and estimates == [40]


def test_a_base_beyond_the_nodes_bound_is_refused_saying_so(monkeypatch, estimates):
    monkeypatch.setattr(contract, "_estimate", _out_of_gas)
    with pytest.raises(contract.ChainError, match="more L2 gas than the node lets an estimate use"):
        _plan(8)


async def _out_of_gas(call: int, max_gas: int) -> int:
    raise contract.GasLimitError(None, max_gas)


REFUSED = (
    "Transaction execution error. Data: {'transaction_index': 0, 'execution_error': "
    "'Transaction size exceeds the maximum block capacity. Max block capacity: BouncerWeights "
    "{ l1_gas: 4950000, message_segment_length: 18446744073709551615, n_events: 5000, n_txs: "
    "18446744073709551615, state_diff_size: 4000, sierra_gas: 2000000000, proving_gas: "
    "18446744073709551615, receipt_l2_gas: 18446744073709551615 }, transaction size: "
    "BouncerWeights { l1_gas: 0, message_segment_length: 0, n_events: 1, n_txs: 1, "
    "state_diff_size: 6, sierra_gas: 2660177100, proving_gas: 2418534202, receipt_l2_gas: "
    "852824320 }.'}"
)
"""devnet 0.8.2 refusing MiniLM's settlement when it read every node's records."""


def test_a_call_larger_than_a_block_is_refused_with_what_the_block_counted(monkeypatch):
    async def refused(call: int, max_gas: int) -> int:
        raise contract.GasLimitError(None, max_gas, contract.block_weight(REFUSED))

    monkeypatch.setattr(contract, "_estimate", refused)
    expected = (
        r"needs more than a block holds: "
        r"2,660,177,100 Sierra gas of a block's 2,000,000,000 \(852,824,320 L2 gas\)"
    )
    with pytest.raises(contract.ChainError, match=expected):
        _plan(1, least=1)
    assert contract.block_weight("Out of gas") is None
