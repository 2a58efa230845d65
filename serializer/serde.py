"""Proof dataclasses <-> felt252 calldata in Cairo's `Serde` order, driven by type hints.

The Cairo verifier deserializes a walk proof with `#[derive(Serde)]` structs generated from
the same dataclasses (`serializer/cairo_types.py`), so one rule per type serves every layer
(docs/calldata.md, "Walk proofs"):

    dataclass        its fields in order            QM31        one felt 1‖a‖b‖c‖d
    int              one felt (u32: < 2^32)          str         a short string (≤ 31 bytes)
    list / tuple     length, then the items         X | None    0 then X, or 1
    dict[str, X]     length, then (name, X) by name  frozenset   length, then the names sorted
    np.ndarray       a Tensor: shape, then its values embedded mod p, packed 8 per felt
    Any (a layer's proof)   the enum variant: the kind's index in `WALK_KINDS`, then the
                     proof as a nested part: its felts' count, then its felts
    a `NESTED` field  its felts' count, then its felts (a `Span<felt252>` in Cairo)

Decoding checks what Cairo's deserialization checks, in its order (a bad QM31 felt as it is
read; truncation, an int out of range or an unknown variant as `calldata.serde`), then, after
the whole proof is read, every tensor's words (`calldata.length`, `.marker`, `.limb`), that
every map's names strictly increase (`calldata.names`: the transcript absorbs in that order)
and that nothing follows (`calldata.extra`); a `NESTED` field's felts are decoded last, as the
class that verifies them deserializes them after those checks.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from cairn.prover.channels.poseidon import M31_PER_FELT, PackingError, pack_m31s, unpack_m31s
from cairn.prover.fields.m31 import embed, lift
from cairn.prover.fields.qm31 import QM31
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.felts import Reader, unpack_qm31

U32 = 1 << 32
WIDE_INTS = {
    ("Commitment", "root"): "u256",
    ("OpeningProof", "layer_roots"): "u256",
    ("OpeningProof", "pow_nonce"): "u64",
    ("ModelBinding", "model_id"): "felt252",
    ("ModelBinding", "config_hash"): "felt252",
}
"""Int fields (or lists of ints) wider than the default u32: digests (u256: low, high), the
grinding nonce, and felts (a model id, a config hash)."""
OUTSIDE_SERDE = {
    ("OpeningProof", "poly_openings"),
    ("OpeningProof", "layer_openings"),
    ("Statement", "ranged"),
}
"""Fields the Serde part does not carry: a PCS opening's Merkle openings travel after it, one
part per fold group, where a session may cut (`walk_calldata`): the committed tensors'
opening's, then the witness opening's; decoding leaves them None for `walk_calldata` to fill.
A statement's `ranged` is derived by a model walk's views, never read (decoded empty)."""


NESTED = {("AttnProof", "softmax"), ("RequantProof", "logup")}
"""Fields carried as a length-prefixed felt list: the walk classes pass them unread to the class
that verifies them, which deserializes them (the softmax proof and requant's LogUp-GKR: the
lookup class, docs/cairo-verifier.md, "Eight classes"), so only that class carries their Serde
code."""


def _default(f: dataclasses.Field) -> Any:
    """A field's dataclass default (its factory's value), None where it has none."""
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None if f.default is dataclasses.MISSING else f.default


def fields_of(cls: type) -> dict[str, Any]:
    """A dataclass's fields as calldata carries them, in order, with their type hints."""
    return {n: h for n, h in hints(cls).items() if (cls.__name__, n) not in OUTSIDE_SERDE}


def int_type(cls: type, name: str) -> str:
    return WIDE_INTS.get((cls.__name__, name), "u32")


def short_string(text: str) -> int:
    """A Cairo short string: at most 31 ASCII bytes, big-endian."""
    raw = text.encode("ascii")
    if len(raw) > 31:
        raise ValueError(f"{text!r} is longer than a short string (31 bytes)")
    return int.from_bytes(raw, "big")


def from_short_string(felt: int) -> str:
    """Inverse of short_string; one string per felt below 2^248 (latin-1 is injective)."""
    return felt.to_bytes(32, "big").lstrip(b"\0").decode("latin-1")


def name_order_key(felt: int) -> int:
    """Names compare as Cairo compares them: the felt's bytes left-aligned in 31 bytes, so
    ASCII names sort as Python sorts the strings."""
    return felt << 8 * (31 - (felt.bit_length() + 7) // 8) if felt < 1 << 248 else felt


def _args(hint: Any) -> tuple[Any, ...]:
    return typing.get_args(hint)


def _is_optional(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    return origin in (typing.Union, types.UnionType) and type(None) in _args(hint)


def _inner(hint: Any) -> Any:
    (inner,) = [a for a in _args(hint) if a is not type(None)]
    return inner


def _container(hint: Any) -> Any:
    origin = typing.get_origin(hint)
    return origin if origin is not None else hint


def hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


class Encoder:
    """Encodes by type hint; `variants` maps a value's type to its enum index and, for the
    walk's `layer: Any`, says which proof types may stand there."""

    def __init__(self, variant_of: Callable[[Any], int]) -> None:
        self.variant_of = variant_of

    def encode(self, value: Any, hint: Any, out: list[int], ints: str = "u32") -> None:
        """`ints`: the Cairo type of the ints at this field (`WIDE_INTS`)."""
        if hint is Any:
            out.append(self.variant_of(value))
            self.part(value, type(value), out)
        elif _is_optional(hint):
            if value is None:
                out.append(1)
            else:
                out.append(0)
                self.encode(value, _inner(hint), out, ints)
        elif hint is QM31:
            out.append(value.pack(1))
        elif hint is int:
            v = int(value)
            out.extend((v & ((1 << 128) - 1), v >> 128) if ints == "u256" else (v,))
        elif hint is str:
            out.append(short_string(value))
        elif hint is np.ndarray:
            self.tensor(np.asarray(value), out)
        elif dataclasses.is_dataclass(hint):
            for name, field_hint in fields_of(hint).items():  # type: ignore[arg-type]
                ints = int_type(hint, name)  # type: ignore[arg-type]
                if (hint.__name__, name) in NESTED:  # type: ignore[union-attr]
                    self.part(getattr(value, name), field_hint, out, ints)
                else:
                    self.encode(getattr(value, name), field_hint, out, ints)
        else:
            self.collection(value, hint, out, ints)

    def part(self, value: Any, hint: Any, out: list[int], ints: str = "u32") -> None:
        """A nested part: its felts' count, then its felts."""
        part: list[int] = []
        self.encode(value, hint, part, ints)
        out.append(len(part))
        out.extend(part)

    def collection(self, value: Any, hint: Any, out: list[int], ints: str) -> None:
        container = _container(hint)
        if container in (frozenset, set):
            names = sorted(value)
            out.append(len(names))
            out.extend(short_string(n) for n in names)
        elif container in (dict, typing.Mapping) or _is_mapping(container):
            _, item = _args(hint)
            out.append(len(value))
            for name in sorted(value):
                out.append(short_string(name))
                self.encode(value[name], item, out)
        elif container in (list, tuple, Sequence) or _is_sequence(container):
            item = _args(hint)[0]
            out.append(len(value))
            for v in value:
                self.encode(v, item, out, ints)
        else:
            raise TypeError(f"no calldata rule for {hint!r}")

    @staticmethod
    def tensor(t: np.ndarray, out: list[int]) -> None:
        out.append(t.ndim)
        out.extend(int(d) for d in t.shape)
        words = pack_m31s(embed(t).ravel())
        out.append(len(words))
        out.extend(words)


def _is_mapping(container: Any) -> bool:
    return isinstance(container, type) and issubclass(container, typing.Mapping)  # type: ignore[arg-type]


def _is_sequence(container: Any) -> bool:
    return isinstance(container, type) and issubclass(container, Sequence)


@dataclasses.dataclass
class _PendingNested:
    """A `NESTED` field's felts, from `at` to `end`: decoded by `Decoder.nested` after the
    outer proof's checks."""

    hint: Any
    at: int
    end: int
    value: Any = None


@dataclasses.dataclass
class _PendingTensor:
    """A tensor read but not yet checked: its words are checked after the whole proof is
    read, as in Cairo, then `resolve` puts the array in its place."""

    shape: tuple[int, ...]
    words: list[int]
    at: int
    array: np.ndarray | None = None


class Decoder:
    """The inverse of Encoder with Cairo's checks in Cairo's order; `variant_type` maps an
    enum index back to its proof type (None: unknown)."""

    def __init__(self, felts: list[int], variant_type: Callable[[int], type | None]) -> None:
        self.rd = Reader(felts)
        self.variant_type = variant_type
        self.tensors: list[_PendingTensor] = []
        self.maps: list[tuple[int, list[int]]] = []
        """Each map's (offset, names) in reading order: checked after the tensors."""
        self.parts: list[_PendingNested] = []

    def serde(self, what: str) -> int:
        if self.rd.pos >= len(self.rd.felts):
            raise self.rd.fail(f"ended before {what}", "calldata.serde", self.rd.pos)
        return self.rd.take(what)

    def bounded(self, what: str, bits: int) -> int:
        v = self.serde(what)
        if v >> bits:
            raise self.rd.fail(f"{what} = {v} is not a u{bits}", "calldata.serde")
        return v

    def u32(self, what: str) -> int:
        return self.bounded(what, 32)

    def u128(self, what: str) -> int:
        return self.bounded(what, 128)

    def decode(self, hint: Any, what: str, ints: str = "u32") -> Any:
        if hint is Any:
            index = self.serde(f"{what} variant")
            cls = self.variant_type(index)
            if cls is None:
                raise self.rd.fail(f"{what}: unknown variant {index}", "calldata.serde")
            return self.part(cls, what)
        if _is_optional(hint):
            flag = self.serde(f"{what} option")
            if flag == 1:
                return None
            if flag != 0:
                raise self.rd.fail(f"{what}: option flag {flag}", "calldata.serde")
            return self.decode(_inner(hint), what, ints)
        if hint is QM31:
            felt = self.serde(what)
            try:
                return unpack_qm31(felt)
            except MalformedProofError as e:
                raise self.rd.fail(e.problem, e.check) from None
        if hint is int:
            if ints == "u256":
                return self.u128(what) + (self.u128(what) << 128)
            if ints == "felt252":
                return self.serde(what)
            return self.bounded(what, 64 if ints == "u64" else 32)
        if hint is str:
            return from_short_string(self.serde(what))
        if hint is np.ndarray:
            return self.tensor(what)
        if dataclasses.is_dataclass(hint):
            defaults = {f.name: f for f in dataclasses.fields(hint)}  # type: ignore[arg-type]
            outside = hints(hint).keys() - fields_of(hint).keys()  # type: ignore[arg-type]
            values: dict[str, Any] = {n: _default(defaults[n]) for n in outside}
            for name, field_hint in fields_of(hint).items():  # type: ignore[arg-type]
                if (hint.__name__, name) in NESTED:  # type: ignore[union-attr]
                    values[name] = self.part(field_hint, f"{what}.{name}")
                else:
                    values[name] = self.decode(field_hint, f"{what}.{name}", int_type(hint, name))  # type: ignore[arg-type]
            return hint(**values)  # type: ignore[operator]
        return self.collection(hint, what, ints)

    def collection(self, hint: Any, what: str, ints: str) -> Any:
        """Cairo's `Array` Serde counts its length down as a felt, reading items until the
        count or the calldata ends: a length past 2^32 is no error of its own (an item's, or
        the end, decides)."""
        container = _container(hint)
        count = self.serde(f"{what} length")
        at = self.rd.pos
        if container in (frozenset, set):
            names = [self.serde(f"{what} name") for _ in range(count)]
            self.maps.append((at, names))
            return frozenset(map(from_short_string, names))
        if container in (dict, typing.Mapping) or _is_mapping(container):
            _, item = _args(hint)
            out, names = {}, []
            for _ in range(count):
                names.append(felt := self.serde(f"{what} name"))
                name = from_short_string(felt)
                out[name] = self.decode(item, f"{what}.{name}")
            self.maps.append((at, names))
            return out
        item = _args(hint)[0]
        items = [self.decode(item, f"{what}[{i}]", ints) for i in range(count)]
        return tuple(items) if container is tuple else items

    def part(self, hint: Any, what: str) -> _PendingNested:
        count = self.u32(f"{what} length")
        at = self.rd.pos
        for _ in range(count):
            self.serde(f"{what} felt")
        pending = _PendingNested(hint, at, self.rd.pos)
        self.parts.append(pending)
        return pending

    def nested(self) -> None:
        """Decode the `NESTED` parts, each exactly its felts (else `calldata.serde`), with the
        checks of `finish`."""
        for part in self.parts:
            sub = Decoder(self.rd.felts[: part.end], self.variant_type)
            sub.rd.pos = part.at
            value = sub.decode(part.hint, "part")
            if sub.rd.pos != part.end:
                raise sub.rd.fail("felts left in a nested part", "calldata.serde", sub.rd.pos)
            sub.finish()
            sub.nested()
            part.value = resolve(value)

    def tensor(self, what: str) -> Any:
        rank = self.u32(f"{what} rank")
        shape = tuple(self.u32(f"{what} dim") for _ in range(rank))
        count = self.u32(f"{what} words")
        at = self.rd.pos
        words = [self.serde(f"{what} word") for _ in range(count)]
        pending = _PendingTensor(shape, words, at)
        self.tensors.append(pending)
        return pending

    def finish(self) -> None:
        """The post-deserialization checks: each tensor's words, then the names' order."""
        for t in self.tensors:
            size = math.prod(t.shape)  # exact: no shape wraps it
            if len(t.words) != -(-size // M31_PER_FELT):
                raise self.rd.fail("word count does not fit the shape", "calldata.length", t.at)
            try:
                values = unpack_m31s(t.words, size)
            except PackingError as e:
                raise self.rd.fail(str(e), f"calldata.{e.kind}", t.at + e.index) from None
            t.array = lift(values).reshape(t.shape)
        for at, names in self.maps:
            keys = [name_order_key(n) for n in names]
            if any(a >= b for a, b in itertools.pairwise(keys)):
                raise self.rd.fail("names not strictly increasing", "calldata.names", at)


def resolve(value: Any) -> Any:
    """Replace the decoder's tensor placeholders by the arrays (after `finish`)."""
    if isinstance(value, _PendingTensor):
        return value.array
    if isinstance(value, _PendingNested):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: resolve(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    if isinstance(value, dict):
        return {k: resolve(v) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v) for v in value]
    if isinstance(value, tuple):
        return tuple(resolve(v) for v in value)
    return value
