"""A real devnet with CairnVerifier deployed, shared by the devnet test modules."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from starknet_py.net.account.account import Account

from cairn.deploy import contract, devnet
from cairn.deploy.build import Artifacts, build
from cairn.deploy.toolchain import default_toolchain

T = TypeVar("T")


@dataclass(frozen=True)
class Chain:
    """The devnet, its first two predeployed accounts (#0 deployed the contract and owns its
    registry) and the contract's address; `run` drives starknet-py's coroutines."""

    loop: asyncio.AbstractEventLoop
    info: devnet.DevnetInfo
    accounts: tuple[Account, Account]
    artifacts: Artifacts
    address: int

    @property
    def account(self) -> Account:
        return self.accounts[0]

    @property
    def url(self) -> str:
        return self.info.url

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)


@contextlib.contextmanager
def deployed_chain(log_dir: Path) -> Iterator[Chain]:
    tc = default_toolchain().require()
    art = build(tc)
    with devnet.running_devnet(tc, log_dir) as info:
        loop = asyncio.new_event_loop()
        try:
            first, second = (
                loop.run_until_complete(contract.connect(info.url, a.address, a.private_key))
                for a in devnet.predeployed_accounts(info.url)[:2]
            )
            dep = loop.run_until_complete(contract.declare_and_deploy(first, art))
            yield Chain(loop, info, (first, second), art, dep.address)
        finally:
            loop.close()
