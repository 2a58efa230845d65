"""Cairo -> Sierra 1.8.0 (starknet-compile 2.17.0) -> CASM (starknet-sierra-compile 2.17.0).

Both steps use the audited (mainnet) libfunc list, and CASM is limited to mainnet's bytecode
size. Artifacts are cached under the toolchain root by a hash of the Cairo sources, so
repeated deploys do not recompile.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cairn.deploy.toolchain import (
    CAIRO_VERSION,
    Toolchain,
    ToolchainError,
)

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "verifier_cairo"
CONTRACT_PATH = "cairn_verifier::contract::CairnVerifier"
WALK_CONTRACT_PATH = "cairn_verifier::walk::contract::CairnWalkVerifier"
ATTENTION_CONTRACT_PATH = "cairn_verifier::walk::contract::CairnAttentionVerifier"
ENCODER_CONTRACT_PATH = "cairn_verifier::walk::contract::CairnEncoderVerifier"
RANGE_CONTRACT_PATH = "cairn_verifier::walk::contract::CairnRangeVerifier"
LOOKUP_CONTRACT_PATH = "cairn_verifier::lookups::contract::CairnLookupVerifier"
GRAPH_CONTRACT_PATH = "cairn_verifier::graph::contract::CairnGraphVerifier"
FRONT_CONTRACT_PATH = "cairn_verifier::pcs::contract::CairnFrontVerifier"
"""The walk verifiers' classes (dense kinds, attention kinds, the encoder's other kinds, range),
which CairnVerifier calls by library_call, the lookup class the attention and encoder classes
call (softmax, requant, gelu, layernorm), the model walk's class, which calls the walk
classes node by node, and the PCS fronts' class: together they are over mainnet's bytecode
limit for one class (docs/cairo-verifier.md, "Eight classes")."""
MAX_SIERRA_FELTS = 81_920
MAX_BYTECODE = 81_920


@dataclass(frozen=True)
class ClassArtifacts:
    sierra: Path
    casm: Path

    @property
    def sierra_length(self) -> int:
        return len(json.loads(self.sierra.read_text())["sierra_program"])

    @property
    def bytecode_length(self) -> int:
        return len(json.loads(self.casm.read_text())["bytecode"])


@dataclass(frozen=True)
class Artifacts(ClassArtifacts):
    """The main contract's class, and the classes it is deployed with."""

    dense: ClassArtifacts
    attention: ClassArtifacts
    encoder: ClassArtifacts
    range: ClassArtifacts
    lookup: ClassArtifacts
    graph: ClassArtifacts
    front: ClassArtifacts

    def helpers(self) -> dict[str, ClassArtifacts]:
        """The classes besides the main one, by their constructor argument."""
        return {
            "dense_class": self.dense,
            "attention_class": self.attention,
            "encoder_class": self.encoder,
            "range_class": self.range,
            "lookup_class": self.lookup,
            "graph_class": self.graph,
            "front_class": self.front,
        }


def _sources_digest(package: Path) -> str:
    h = hashlib.sha256(CAIRO_VERSION.encode())
    for f in sorted(package.rglob("*")):
        if f.is_file() and f.suffix in (".cairo", ".toml") and "target" not in f.parts:
            h.update(str(f.relative_to(package)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolchainError(f"{what} failed:\n{(proc.stderr or proc.stdout)[-3000:]}")


def build(tc: Toolchain, package: Path = PACKAGE_DIR) -> Artifacts:
    """The eight classes, compiled once per source digest."""
    tc.require()
    out = tc.root / "build" / _sources_digest(package)
    with _locked(out):
        dense = _build_class(tc, package, WALK_CONTRACT_PATH, out / "CairnWalkVerifier")
        attention = _build_class(
            tc, package, ATTENTION_CONTRACT_PATH, out / "CairnAttentionVerifier"
        )
        encoder = _build_class(tc, package, ENCODER_CONTRACT_PATH, out / "CairnEncoderVerifier")
        range_ = _build_class(tc, package, RANGE_CONTRACT_PATH, out / "CairnRangeVerifier")
        lookup = _build_class(tc, package, LOOKUP_CONTRACT_PATH, out / "CairnLookupVerifier")
        graph = _build_class(tc, package, GRAPH_CONTRACT_PATH, out / "CairnGraphVerifier")
        front = _build_class(tc, package, FRONT_CONTRACT_PATH, out / "CairnFrontVerifier")
        main = _build_class(tc, package, CONTRACT_PATH, out / "CairnVerifier")
    return Artifacts(
        main.sierra, main.casm, dense, attention, encoder, range_, lookup, graph, front
    )


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One build per source digest at a time: processes starting together (test workers, say)
    wait for the first to compile the classes instead of each compiling them."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build_class(tc: Toolchain, package: Path, contract: str, stem: Path) -> ClassArtifacts:
    art = ClassArtifacts(stem.with_suffix(".sierra.json"), stem.with_suffix(".casm.json"))
    if art.sierra.is_file() and art.casm.is_file():
        return art
    # written aside, then renamed: an interrupted build leaves no half-written class
    tmp_sierra, tmp_casm = (p.with_suffix(f".{os.getpid()}.tmp") for p in (art.sierra, art.casm))
    _run(
        [
            str(tc.starknet_compile),
            str(package),
            "--contract-path",
            contract,
            "--allowed-libfuncs-list-name",
            "audited",
            str(tmp_sierra),
        ],
        "starknet-compile",
    )
    _run(
        [
            str(tc.sierra_compile),
            "--allowed-libfuncs-list-name",
            "audited",
            "--max-bytecode-size",
            str(MAX_BYTECODE),
            str(tmp_sierra),
            str(tmp_casm),
        ],
        f"starknet-sierra-compile ({contract.rsplit('::', 1)[-1]})",
    )
    tmp_sierra.replace(art.sierra)
    tmp_casm.replace(art.casm)
    if art.sierra_length > MAX_SIERRA_FELTS:
        raise ToolchainError(f"Sierra program has {art.sierra_length} felts > {MAX_SIERRA_FELTS}")
    return art
