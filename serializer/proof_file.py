"""Versioned JSON proof files (docs/proof-format.md).

Loading validates every field and raises MalformedProofError naming the first bad one.
Consistency between fields (shapes against dimensions, the proof itself) is the verifier's
job, so a tampered-but-well-formed file is rejected by a named check, not here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from cairn.prover.fields.m31 import HALF, P
from cairn.prover.fields.qm31 import QM31
from cairn.prover.matmul.instance import MatmulInstance
from cairn.prover.matmul.proof import MatmulProof
from cairn.prover.sumcheck.proof import MAX_DEGREE, SumcheckProof
from cairn.serializer.errors import MalformedProofError

FORMAT = "cairn-proof"
VERSION = 1
KINDS = ("matmul",)
MAX_DIM = 1 << 20


def to_json_dict(proof: MatmulProof) -> dict[str, Any]:
    inst = proof.instance
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": "matmul",
        "instance": {
            "m": inst.m,
            "k": inst.k,
            "n": inst.n,
            "a": inst.a.tolist(),
            "b": inst.b.tolist(),
            "c": inst.c.tolist(),
        },
        "proof": {
            "sumcheck": {"rounds": [[list(x.coords) for x in rnd] for rnd in proof.sumcheck.rounds]}
        },
    }


def save(proof: MatmulProof, path: Path) -> None:
    """Write atomically: a crash never leaves a half-written proof behind."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(to_json_dict(proof), separators=(",", ":")))
    tmp.replace(path)


def _get(obj: Any, key: str, path: str) -> Any:
    if not isinstance(obj, dict):
        raise MalformedProofError(path, "expected an object")
    if key not in obj:
        raise MalformedProofError(f"{path}.{key}" if path else key, "missing")
    return obj[key]


def _int(value: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedProofError(path, f"expected an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise MalformedProofError(path, f"{value} not in [{lo}, {hi}]")
    return value


def _matrix(value: Any, path: str) -> np.ndarray:
    """Vectorized when well formed; the element-wise walk runs only to name what is wrong."""
    if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        raise MalformedProofError(path, "expected a non-empty list of rows")
    try:
        arr = np.array(value)
    except (ValueError, OverflowError):
        arr = None
    if arr is not None and arr.ndim == 2 and arr.dtype.kind == "i" and arr.size:
        if int(np.abs(arr).max()) <= HALF:
            return arr.astype(np.int64)
    width = len(value[0])
    for i, row in enumerate(value):
        if len(row) != width or not row:
            raise MalformedProofError(f"{path}[{i}]", f"row length {len(row)} != {width}")
        for j, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int) or not -HALF <= v <= HALF:
                raise MalformedProofError(f"{path}[{i}][{j}]", f"not an integer in ±{HALF}")
    raise MalformedProofError(path, "not a matrix of integers")


def _qm31(value: Any, path: str) -> QM31:
    if not isinstance(value, list) or len(value) != 4:
        raise MalformedProofError(path, "expected a QM31 as 4 integers [a, b, c, d]")
    return QM31(*(_int(v, f"{path}[{i}]", 0, P - 1) for i, v in enumerate(value)))


def _sumcheck(value: Any, path: str) -> SumcheckProof:
    rounds = _get(value, "rounds", path)
    if not isinstance(rounds, list):
        raise MalformedProofError(f"{path}.rounds", "expected a list")
    parsed = []
    for i, rnd in enumerate(rounds):
        where = f"{path}.rounds[{i}]"
        if not isinstance(rnd, list) or not 1 <= len(rnd) <= MAX_DEGREE:
            raise MalformedProofError(where, f"expected 1..{MAX_DEGREE} coefficients")
        parsed.append([_qm31(c, f"{where}[{j}]") for j, c in enumerate(rnd)])
    return SumcheckProof(parsed)


def from_json_dict(doc: Any) -> MatmulProof:
    if _get(doc, "format", "") != FORMAT:
        raise MalformedProofError("format", f"expected {FORMAT!r}")
    version = _get(doc, "version", "")
    if version != VERSION:
        raise MalformedProofError("version", f"unsupported version {version!r} (want {VERSION})")
    kind = _get(doc, "kind", "")
    if kind not in KINDS:
        raise MalformedProofError("kind", f"unknown proof kind {kind!r}")
    inst = _get(doc, "instance", "")
    dims = {d: _int(_get(inst, d, "instance"), f"instance.{d}", 1, MAX_DIM) for d in "mkn"}
    mats = {x: _matrix(_get(inst, x, "instance"), f"instance.{x}") for x in "abc"}
    body = _get(doc, "proof", "")
    sumcheck = _sumcheck(_get(body, "sumcheck", "proof"), "proof.sumcheck")
    return MatmulProof(MatmulInstance(**dims, **mats), sumcheck)


def load(path: Path) -> MatmulProof:
    try:
        text = path.read_text()
    except OSError as e:
        raise MalformedProofError(str(path), f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise MalformedProofError(str(path), "not a UTF-8 text file") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise MalformedProofError(
            str(path), f"not valid JSON ({e.msg} at line {e.lineno})"
        ) from None
    return from_json_dict(doc)
