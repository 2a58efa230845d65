"""A real starknet-devnet process: start on a free port with a fixed seed, wait until it
answers, read its predeployed accounts, stop it, and notice when it has died.

`cairn devnet start` keeps one background devnet recorded in a state file, so `deploy` and
`verify-onchain` find it; tests use `running_devnet()` which always stops what it started.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cairn.deploy.toolchain import Toolchain

SEED = 42
ACCOUNTS = 4
START_TIMEOUT_S = 60.0


class DevnetError(RuntimeError):
    """The devnet could not start, is not running, or stopped answering."""


@dataclass(frozen=True)
class Account:
    address: str
    private_key: str


@dataclass(frozen=True)
class DevnetInfo:
    pid: int
    port: int
    log: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def state_file() -> Path:
    base = os.environ.get("CAIRN_STATE_DIR")
    return (Path(base) if base else Path.home() / ".cache" / "cairn") / "devnet.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def is_alive(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/is_alive", timeout=timeout) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie child still answers kill(0); reap it so it reads as gone
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def start(tc: Toolchain, log_dir: Path) -> DevnetInfo:
    """Start a devnet in its own session; returns once /is_alive answers."""
    tc.require()
    port = _free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"devnet-{port}.log"
    cmd = [
        str(tc.devnet),
        "--seed",
        str(SEED),
        "--accounts",
        str(ACCOUNTS),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    info = DevnetInfo(proc.pid, port, str(log))
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = "\n".join(log.read_text().splitlines()[-10:])
            raise DevnetError(f"starknet-devnet exited with code {proc.returncode}:\n{tail}")
        if is_alive(info.url):
            return info
        time.sleep(0.2)
    stop(info)
    raise DevnetError(f"starknet-devnet did not answer on {info.url} within {START_TIMEOUT_S:.0f}s")


def stop(info: DevnetInfo) -> None:
    """SIGTERM, then SIGKILL after 10 s; a devnet that is already gone is fine."""
    for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        if not _pid_running(info.pid):
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(info.pid, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and _pid_running(info.pid):
            time.sleep(0.1)


@contextlib.contextmanager
def running_devnet(tc: Toolchain, log_dir: Path) -> Iterator[DevnetInfo]:
    info = start(tc, log_dir)
    try:
        yield info
    finally:
        stop(info)


def rpc(url: str, method: str, params: Any = None, timeout: float = 30.0) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})
    req = urllib.request.Request(f"{url}/rpc", body.encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            reply = json.loads(resp.read())
    except (urllib.error.URLError, OSError) as e:
        raise DevnetError(f"no answer from {url} ({e}); is the devnet still running?") from None
    if "error" in reply:
        raise DevnetError(f"{method}: {reply['error']}")
    return reply["result"]


def predeployed_accounts(url: str) -> list[Account]:
    return [
        Account(a["address"], a["private_key"]) for a in rpc(url, "devnet_getPredeployedAccounts")
    ]


# -- the background devnet of `cairn devnet start|stop|status` -----------------------------
def save_state(info: DevnetInfo) -> None:
    path = state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(info)))


def load_state() -> DevnetInfo | None:
    try:
        return DevnetInfo(**json.loads(state_file().read_text()))
    except (OSError, ValueError, TypeError):
        return None


def clear_state() -> None:
    state_file().unlink(missing_ok=True)


def recorded_url() -> str | None:
    """The URL of the recorded devnet if it is alive, else None."""
    info = load_state()
    return info.url if info and is_alive(info.url) else None
