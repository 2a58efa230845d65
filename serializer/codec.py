"""Typed JSON for proof dataclasses, driven by their type hints.

A layer's proof is a tree of frozen dataclasses whose leaves are QM31 values and ints, so one
reflective codec serves every layer: a QM31 is [a, b, c, d], a dataclass an object with its
field names, `X | None` is null or X. Decoding validates every leaf and names the first bad
one by its JSON path; whether the counts fit the statement is the verifier's job.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

import numpy as np

from cairn.prover.channels.poseidon import M31_PER_FELT
from cairn.prover.fields.m31 import HALF, P, max_magnitude
from cairn.prover.fields.qm31 import QM31
from cairn.prover.merkle.proof import MerkleOpening
from cairn.serializer.errors import MalformedProofError

MAX_LIST = 1 << 16
MAX_DIM = 1 << 20  # largest tensor dimension any statement or calldata may name


def encode(value: Any) -> Any:
    if isinstance(value, QM31):
        return list(value.coords)
    if dataclasses.is_dataclass(value):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def proof_felts(proof: Any) -> int:
    """An estimate of a proof body's felts in a generic layout: a QM31 packed 1‖a‖b‖c‖d is
    one, an int one, a list its length prefix plus its items, an optional a presence flag plus
    its value, a Merkle leaf row its M31 values packed 8 per felt. Real calldata
    (docs/calldata.md) omits some length felts, so it is a little smaller.

    For a walk proof the statement (public I/O the verifier reads anyway) is not counted.
    """
    if dataclasses.is_dataclass(proof) and hasattr(proof, "statement"):
        return sum(
            _count(getattr(proof, f.name))
            for f in dataclasses.fields(proof)
            if f.name != "statement"
        )
    return _count(proof)


def _count(value: Any) -> int:
    if isinstance(value, QM31 | int) or value is None:
        return 1
    if isinstance(value, MerkleOpening):
        rows = sum(1 + -(-len(row) // M31_PER_FELT) for row in value.leaves)
        return 1 + rows + _count(value.siblings)
    if dataclasses.is_dataclass(value):
        return sum(_count(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return sum(1 + _count(v) for v in value.values())
    return 1 + sum(_count(v) for v in value)


def get(obj: Any, key: str, path: str) -> Any:
    if not isinstance(obj, dict):
        raise MalformedProofError(path or "(top)", "expected an object")
    if key not in obj:
        raise MalformedProofError(f"{path}.{key}" if path else key, "missing")
    return obj[key]


def integer(value: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedProofError(path, f"expected an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise MalformedProofError(path, f"{value} not in [{lo}, {hi}]")
    return value


def qm31(value: Any, path: str) -> QM31:
    if not isinstance(value, list) or len(value) != 4:
        raise MalformedProofError(path, "expected a QM31 as 4 integers [a, b, c, d]")
    return QM31(*(integer(v, f"{path}[{i}]", 0, P - 1) for i, v in enumerate(value)))


def tensor(value: Any, path: str, ndim: int | None = None) -> np.ndarray:
    """A rectangular, non-empty array of signed integers |x| <= (p-1)/2.

    Vectorized when well formed; the element-wise walk runs only to name what is wrong.
    """
    try:
        arr = np.array(value)
    except (ValueError, OverflowError):
        arr = None
    if (
        arr is not None
        and arr.dtype.kind == "i"
        and arr.size
        and arr.ndim >= 1
        and (ndim is None or arr.ndim == ndim)
        and max_magnitude(arr) <= HALF
    ):
        return arr.astype(np.int64)
    _name_bad_entry(value, path, ndim)
    raise MalformedProofError(path, "not a rectangular array of integers")


def _name_bad_entry(value: Any, path: str, ndim: int | None) -> None:
    if not isinstance(value, list):
        if ndim not in (None, 0):
            raise MalformedProofError(path, f"expected a {ndim}-dimensional list")
        if isinstance(value, bool) or not isinstance(value, int) or not -HALF <= value <= HALF:
            raise MalformedProofError(path, f"not an integer in ±{HALF}")
        return
    if ndim == 0:
        raise MalformedProofError(path, "expected an integer, got a list")
    if not value:
        raise MalformedProofError(path, "empty")
    first = value[0]
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if isinstance(item, list) != isinstance(first, list):
            raise MalformedProofError(where, "mixes lists and numbers")
        if isinstance(item, list) and len(item) != len(first):
            raise MalformedProofError(where, f"length {len(item)} != {len(first)}")
        _name_bad_entry(item, where, None if ndim is None else ndim - 1)


def join_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def decode(value: Any, hint: Any, path: str) -> Any:
    """Rebuild a value of type `hint` from its JSON form, validating as it goes."""
    origin = typing.get_origin(hint)
    if hint is QM31:
        return qm31(value, path)
    if hint is int:  # counts, nonces, felts and 256-bit digests; verifiers check the ranges
        return integer(value, path, 0, (1 << 256) - 1)
    if hint is np.ndarray:
        return tensor(value, path)
    if hint is str:
        if not isinstance(value, str):
            raise MalformedProofError(path, "expected a string")
        return value
    if origin in (types.UnionType, typing.Union):
        arms = [a for a in typing.get_args(hint) if a is not type(None)]
        return None if value is None else decode(value, arms[0], path)
    if origin in (list, tuple):
        if not isinstance(value, list) or len(value) > MAX_LIST:
            raise MalformedProofError(path, f"expected a list of at most {MAX_LIST}")
        (item,) = typing.get_args(hint)[:1]
        return [decode(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise MalformedProofError(path, "expected an object")
        item = typing.get_args(hint)[1]
        return {str(k): decode(v, item, f"{path}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields = dataclasses.fields(hint)
        return hint(
            **{
                f.name: decode(get(value, f.name, path), hints[f.name], join_path(path, f.name))
                for f in fields
            }
        )
    raise TypeError(f"no JSON decoding for {hint!r}")
