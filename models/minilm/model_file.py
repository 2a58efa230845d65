"""`cairn model import minilm`: calibrate once, commit every integer weight tensor with the
Poseidon PCS, and record it all in a model file (JSON, written atomically).

The file pins the source (the safetensors file's sha256), the config, the widths, the
calibration text's sha256, every tensor's and activation site's scale and width, and the
weight commitments. The integer weights themselves are not stored: they are rebuilt exactly
from the installed package and the recorded scales (`load`)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cairn.models.minilm import accuracy, calibrate, quantized, source
from cairn.models.minilm.quantized import QuantModel, Trace, Widths
from cairn.models.minilm.tokenizer import Tokenizer
from cairn.prover.fields.m31 import max_magnitude
from cairn.prover.mle import next_pow2
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.pcs.prover import commit_tensor
from cairn.serializer.codec import encode, get, integer
from cairn.serializer.commitment_file import committed_tensor
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.files import read_document, write_atomic

FORMAT = "cairn-model"
VERSION = 1
FILE_NAME = "minilm.model.json"


@dataclass(frozen=True)
class Block:
    """Rows [start, end) of a weight tensor and their commitment: a tensor too large for one
    PCS polynomial (the word embeddings) is committed in row blocks."""

    start: int
    end: int
    committed: CommittedTensor


@dataclass(frozen=True)
class Imported:
    path: Path
    model: QuantModel
    blocks: dict[str, list[Block]]


def row_blocks(shape: tuple[int, ...], max_vars: int) -> list[tuple[int, int]]:
    """Split the first axis so each block's padded size is at most 2^max_vars values."""
    inner = int(np.prod([next_pow2(n) for n in shape[1:]], dtype=np.int64))
    rows = max(1, (1 << max_vars) // inner)
    return [(a, min(a + rows, shape[0])) for a in range(0, shape[0], rows)]


def _sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _identity(w: source.Weights, widths: Widths) -> dict[str, Any]:
    """What the file is a function of: equal identities mean re-importing changes nothing."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": "minilm",
        "source": {
            "distribution": source.DISTRIBUTION,
            "version": source.VERSION,
            "file": "model.safetensors",
            "sha256": w.sha256,
        },
        "config": w.config.as_json(),
        "widths": widths.as_json(),
        "semantics": {"qk_bits": quantized.QK_BITS, "softmax_scale": quantized.SOFTMAX_SCALE},
        "calibration_sha256": _sha256_text("\n".join(accuracy.sentences("calibration"))),
    }


def _up_to_date(path: Path, identity: dict[str, Any]) -> bool:
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return isinstance(doc, dict) and all(doc.get(k) == v for k, v in identity.items())


def import_model(
    out_dir: Path,
    folder: Path | None = None,
    stage: Callable[[str], None] = lambda _: None,
    advance: Callable[[str, int, int], None] = lambda *_: None,
) -> tuple[Path, bool]:
    """Write out_dir/minilm.model.json unless an identical import is already there.

    `folder` is a model folder laid out like the package's (default: the installed package).
    Returns (path, written). `stage` names each step; `advance(tensor, values, total)` reports
    the commitment progress in padded values."""
    if not out_dir.is_dir():
        raise ValueError(f"--out {out_dir}: not a directory")
    if not os.access(out_dir, os.W_OK):
        raise ValueError(f"--out {out_dir}: not writable")
    path = out_dir / FILE_NAME
    stage("reading the model package")
    w = source.load(folder)
    widths = Widths()
    identity = _identity(w, widths)
    if _up_to_date(path, identity):
        return path, False
    stage("calibrating on the shipped sentences")
    tok = Tokenizer(folder)
    ids = [tok.encode(s).ids for s in accuracy.sentences("calibration")]
    model = calibrate.quantize(w, calibrate.observe(w, ids), widths)
    stage("checking the integer pipeline stays within M31")
    trace = Trace()
    for t in ids:
        quantized.forward(model, t, trace)
    plans = {n: row_blocks(t.shape, POSEIDON_PARAMS.max_n_vars) for n, t in model.weights.items()}
    total = sum(
        int(np.prod([next_pow2(b - a), *map(next_pow2, model.weights[n].shape[1:])]))
        for n, blocks in plans.items()
        for a, b in blocks
    )
    done = 0
    blocks: dict[str, list[Block]] = {}
    for name, ranges in plans.items():
        blocks[name] = []
        for a, b in ranges:
            committed, _ = commit_tensor(model.weights[name][a:b], POSEIDON_PARAMS)
            blocks[name].append(Block(a, b, committed))
            done += 1 << committed.commitment.n_vars
            advance(name, done, total)
    write_atomic(path, json.dumps(_document(identity, model, blocks, trace), indent=1))
    return path, True


def _document(
    identity: dict[str, Any], model: QuantModel, blocks: dict[str, list[Block]], trace: Trace
) -> dict[str, Any]:
    tensors = {
        name: {
            "scale": model.scales[name],
            "bits": model.bits[name],
            "shape": list(t.shape),
            "blocks": [encode(b) for b in blocks[name]],
        }
        for name, t in model.weights.items()
    }
    sites = {
        name: {"scale": model.scales[name], "bits": model.bits[name]}
        for name in model.scales
        if name not in model.weights
    }
    calibrated = {"max_log2": trace.max_log2(), "clamped": trace.clamped}
    return identity | {"tensors": tensors, "sites": sites, "calibration": calibrated}


def load(path: Path, folder: Path | None = None) -> Imported:
    """The model a file describes, its integer weights rebuilt from the installed package (or
    `folder`), which must be the file's source: same sha256 and config."""
    doc = read_document(path, FORMAT, VERSION)
    w = source.load(folder)
    widths_doc = get(doc, "widths", "")
    if not isinstance(widths_doc, dict) or set(widths_doc) != set(Widths().as_json()):
        raise MalformedProofError("widths", f"expected the widths {sorted(Widths().as_json())}")
    widths = Widths(**{k: integer(v, f"widths.{k}", 0, 30) for k, v in widths_doc.items()})
    identity = _identity(w, widths)
    for key in ("model", "source", "config", "semantics"):
        if get(doc, key, "") != identity[key]:
            raise ValueError(
                f"{path}: {key} differs from the installed {source.DISTRIBUTION} "
                f"{source.VERSION}: re-run `cairn model import minilm`"
            )
    tensors = calibrate.float_tensors(w)
    scales: dict[str, int] = {}
    bits: dict[str, int] = {}
    entries = get(doc, "tensors", "")
    for group, names in (("tensors", list(tensors)), ("sites", calibrate.site_names(w.config))):
        for name in names:
            entry, where = get(get(doc, group, ""), name, group), f"{group}.{name}"
            scales[name] = integer(get(entry, "scale", where), f"{where}.scale", -64, 64)
            bits[name] = integer(get(entry, "bits", where), f"{where}.bits", 2, 30)
    weights = calibrate.integers(tensors, scales)
    blocks = {
        name: _blocks(get(entries, name, "tensors"), t, bits[name], f"tensors.{name}")
        for name, t in weights.items()
    }
    return Imported(path, QuantModel(w.config, widths, weights, scales, bits), blocks)


def _blocks(entry: Any, t: np.ndarray, b: int, where: str) -> list[Block]:
    """A tensor's commitment blocks: consecutive row ranges covering it, each committed with
    its own shape; the rebuilt integers must fit the recorded width."""
    if max_magnitude(t) >= 1 << (b - 1):
        raise ValueError(f"{where}: the rebuilt weights do not fit {b} bits")
    raw = get(entry, "blocks", where)
    if not isinstance(raw, list) or not raw:
        raise MalformedProofError(f"{where}.blocks", "expected a non-empty list")
    out, start = [], 0
    for i, value in enumerate(raw):
        block = _block(value, f"{where}.blocks[{i}]")
        if block.start != start or block.committed.shape != [block.end - start, *t.shape[1:]]:
            raise MalformedProofError(f"{where}.blocks[{i}]", "rows or shape do not fit the tensor")
        out.append(block)
        start = block.end
    if start != t.shape[0]:
        raise MalformedProofError(f"{where}.blocks", f"cover {start} of {t.shape[0]} rows")
    return out


def _block(value: Any, where: str) -> Block:
    start = integer(get(value, "start", where), f"{where}.start", 0, 1 << 20)
    end = integer(get(value, "end", where), f"{where}.end", start + 1, 1 << 20)
    return Block(start, end, committed_tensor(get(value, "committed", where), f"{where}.committed"))
