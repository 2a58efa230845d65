"""Commitment files (docs/proof-format.md): what `cairn commit` writes and a verifier pins.

A weight's commitment is made once (per model) and published; `cairn verify --commitment`
then accepts a committed-weight proof only if it was made against exactly this commitment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.serializer.codec import decode, encode, get
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
    cm = decode(doc, CommittedTensor, "")
    if not cm.shape or min(cm.shape) < 1:
        raise MalformedProofError("shape", "expected a list of dimensions, each >= 1")
    if cm.commitment.hash not in PARAMS:
        raise MalformedProofError("commitment.hash", f"unknown hash {cm.commitment.hash!r}")
    return cm


def load(path: Path) -> CommittedTensor:
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise MalformedProofError(str(path), f"cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MalformedProofError(str(path), "not a JSON commitment file") from None
    return from_json_dict(doc)
