"""Tensor files (docs/proof-format.md): the values of the tensors a proof binds by commitment
only, which `cairn prove --commit-io` writes beside the proof and `cairn verify --io` checks
against the proof's commitments."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cairn.serializer.codec import tensor
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.files import read_document

FORMAT = "cairn-tensors"
VERSION = 1


def dumps(tensors: dict[str, np.ndarray]) -> str:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "tensors": {n: t.tolist() for n, t in tensors.items()},
    }
    return json.dumps(doc, separators=(",", ":"))


def load(path: Path) -> dict[str, np.ndarray]:
    value = read_document(path, FORMAT, VERSION).get("tensors")
    if not isinstance(value, dict) or not value:
        raise MalformedProofError("tensors", "expected an object of named tensors")
    return {str(n): tensor(t, f"tensors.{n}") for n, t in value.items()}
