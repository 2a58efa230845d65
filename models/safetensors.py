"""A reader for the safetensors format: an 8-byte little-endian header length, a JSON header
naming each tensor's dtype, shape and byte range, then the raw little-endian data.

Reading it ourselves keeps the dependency list short; every header field is checked, so a
truncated or inconsistent file is a clear ValueError rather than a wrong tensor.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from pathlib import Path

import numpy as np

DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
}
MAX_HEADER = 100 << 20


def read_safetensors(path: Path) -> tuple[dict[str, np.ndarray], str]:
    """Every tensor of the file (native-endian copies) and the file's sha256 (hex)."""
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise ValueError(f"{path}: cannot read ({e.strerror or e})") from None
    return parse_safetensors(blob, str(path)), hashlib.sha256(blob).hexdigest()


def parse_safetensors(blob: bytes, name: str = "safetensors") -> dict[str, np.ndarray]:
    if len(blob) < 8:
        raise ValueError(f"{name}: too short for a safetensors header")
    (n,) = struct.unpack("<Q", blob[:8])
    if n > min(MAX_HEADER, len(blob) - 8):
        raise ValueError(f"{name}: header length {n} exceeds the file")
    try:
        header = json.loads(blob[8 : 8 + n])
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{name}: header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{name}: header is not a JSON object")
    data = memoryview(blob)[8 + n :]
    tensors = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        tensors[key] = _tensor(entry, data, f"{name}: tensor {key!r}")
    return tensors


def _tensor(entry: object, data: memoryview, where: str) -> np.ndarray:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: entry is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPES:
        raise ValueError(f"{where}: unsupported dtype {dtype!r}")
    if not _ints(shape, 0) or not _ints(offsets, 2):
        raise ValueError(f"{where}: shape and data_offsets must be lists of integers >= 0")
    begin, end = offsets
    np_dtype = np.dtype(DTYPES[dtype])
    if not begin <= end <= len(data) or end - begin != math.prod(shape) * np_dtype.itemsize:
        raise ValueError(f"{where}: byte range {offsets} does not hold a {dtype} {shape}")
    arr = np.frombuffer(data[begin:end], dtype=np_dtype).reshape(shape)
    return arr.astype(np_dtype.newbyteorder("="))


def _ints(value: object, length: int) -> bool:
    """A list of non-negative ints (of exactly `length` items when length > 0)."""
    return (
        isinstance(value, list)
        and (length == 0 or len(value) == length)
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    )
