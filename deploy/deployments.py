"""Where CairnVerifier is deployed, per RPC URL, recorded in a JSON file beside the devnet
state so `verify-onchain` finds the contract `deploy` created."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.deploy.contract import Deployment
from cairn.deploy.devnet import state_file
from cairn.serializer.files import write_atomic


def record_file() -> Path:
    return state_file().with_name("deployments.json")


def _read() -> dict[str, dict[str, str]]:
    try:
        data = json.loads(record_file().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(rpc_url: str, dep: Deployment) -> None:
    data = _read()
    data[rpc_url] = {"address": hex(dep.address), "class_hash": hex(dep.class_hash)}
    path = record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=2))


def lookup(rpc_url: str) -> int | None:
    entry = _read().get(rpc_url)
    return int(entry["address"], 16) if entry else None
