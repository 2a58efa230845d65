"""Commitment files (docs/proof-format.md): what `cairn commit` writes and a verifier pins.

A weight's commitment is made once (per model) and published; `cairn verify --commitment`
then accepts a committed-weight proof only if it was made against exactly this commitment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.prover.merkle.hashers import get_hash
from cairn.prover.mle import tensor_vars
from cairn.prover.pcs.domain import MAX_LOG_SIZE
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.proof import Commitment, CommittedTensor
from cairn.serializer.codec import MAX_DIM, decode, encode, join_path
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.files import check_header, read_document, write_atomic

FORMAT = "cairn-commitment"
VERSION = 1


def save(cm: CommittedTensor, path: Path) -> None:
    write_atomic(path, json.dumps({"format": FORMAT, "version": VERSION, **encode(cm)}, indent=1))


def from_json_dict(doc: Any) -> CommittedTensor:
    check_header(doc, FORMAT, VERSION)
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
    if not ct.shape or min(ct.shape) < 1 or max(ct.shape) > MAX_DIM:
        raise MalformedProofError(join_path(path, "shape"), f"expected dimensions in 1..{MAX_DIM}")
    check_commitment(ct.commitment, join_path(path, "commitment"))
    if ct.commitment.n_vars != tensor_vars(ct.shape):
        raise MalformedProofError(
            join_path(path, "commitment.n_vars"), f"does not fit the shape {ct.shape}"
        )
    return ct


def load(path: Path) -> CommittedTensor:
    return from_json_dict(read_document(path, FORMAT, VERSION))
