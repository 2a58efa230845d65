"""Commitment files (docs/proof-format.md): what `cairn commit` writes and a verifier pins.

A weight's commitment is made once (per model) and published; `cairn verify --commitment`
then accepts a committed-weight proof only if it was made against exactly this commitment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.prover.merkle.hashers import get_hash
from cairn.prover.pcs.domain import MAX_LOG_SIZE
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.proof import Commitment, CommittedTensor
from cairn.serializer.codec import decode, encode, get, join_path
from cairn.serializer.errors import MalformedProofError

FORMAT = "cairn-commitment"
VERSION = 1


def save(cm: CommittedTensor, path: Path) -> None:
    doc = {"format": FORMAT, "version": VERSION, **encode(cm)}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    tmp.replace(path)


def from_json_dict(doc: Any) -> CommittedTensor:
    if get(doc, "format", "") != FORMAT:
        raise MalformedProofError("format", f"expected {FORMAT!r}")
    if get(doc, "version", "") != VERSION:
        raise MalformedProofError("version", f"unsupported version (want {VERSION})")
    return committed_tensor(doc, "")


def check_commitment(c: Commitment, path: str) -> Commitment:
    """A known hash, a size the domain can hold and a root that hash can output."""
    if c.hash not in PARAMS:
        raise MalformedProofError(f"{path}.hash", f"unknown hash {c.hash!r}")
    if c.n_vars > MAX_LOG_SIZE:
        raise MalformedProofError(f"{path}.n_vars", f"more than 2^{MAX_LOG_SIZE} values")
    if not get_hash(c.hash).is_digest(c.root):
        raise MalformedProofError(f"{path}.root", f"not a {c.hash} digest")
    return c


def committed_tensor(value: Any, path: str) -> CommittedTensor:
    """A commitment file's body or a proof's committed weight, validated."""
    ct = decode(value, CommittedTensor, path)
    if not ct.shape or min(ct.shape) < 1:
        raise MalformedProofError(join_path(path, "shape"), "expected dimensions, each >= 1")
    check_commitment(ct.commitment, join_path(path, "commitment"))
    return ct


def load(path: Path) -> CommittedTensor:
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise MalformedProofError(str(path), f"cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MalformedProofError(str(path), "not a JSON commitment file") from None
    return from_json_dict(doc)
