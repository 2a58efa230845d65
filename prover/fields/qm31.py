"""QM31 = CM31[u] / (u^2 - (2 + i)), the secure field every challenge lives in.

Coordinates (a, b, c, d) mean (a + b*i) + (c + d*i)*u, STWO's order. `QM31` is a scalar of
Python ints; `QM31Array` is an int64 array of shape (..., 4). Both call the same
coordinate-level formulas below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import cairn_native
import numpy as np

from cairn.prover.fields import cm31
from cairn.prover.fields.m31 import Coord, P, embed

Quad = tuple[Coord, Coord, Coord, Coord]


def _mul_by_u_squared(x: cm31.Pair) -> cm31.Pair:
    """(a + bi)(2 + i) = (2a - b) + (a + 2b)i."""
    return (2 * x[0] - x[1]) % P, (x[0] + 2 * x[1]) % P


def add(x: Quad, y: Quad) -> Quad:
    return tuple((xi + yi) % P for xi, yi in zip(x, y, strict=True))  # type: ignore[return-value]


def sub(x: Quad, y: Quad) -> Quad:
    return tuple((xi - yi) % P for xi, yi in zip(x, y, strict=True))  # type: ignore[return-value]


def neg(x: Quad) -> Quad:
    return tuple(-xi % P for xi in x)  # type: ignore[return-value]


def mul(x: Quad, y: Quad) -> Quad:
    """(A + Bu)(C + Du) = AC + BD(2+i) + (AD + BC)u."""
    a, b, c, d = (x[0], x[1]), (x[2], x[3]), (y[0], y[1]), (y[2], y[3])
    lo = cm31.add(cm31.mul(a, c), _mul_by_u_squared(cm31.mul(b, d)))
    hi = cm31.add(cm31.mul(a, d), cm31.mul(b, c))
    return lo[0], lo[1], hi[0], hi[1]


def mul_base(x: Quad, s: Coord) -> Quad:
    return tuple(xi * s % P for xi in x)  # type: ignore[return-value]


def inv(x: Quad) -> Quad:
    """(A + Bu)^-1 = (A - Bu) / (A^2 - (2+i)B^2)."""
    a, b = (x[0], x[1]), (x[2], x[3])
    denom = cm31.sub(cm31.mul(a, a), _mul_by_u_squared(cm31.mul(b, b)))
    d_inv = cm31.inv(denom)
    lo = cm31.mul(a, d_inv)
    hi = cm31.mul((-b[0] % P, -b[1] % P), d_inv)
    return lo[0], lo[1], hi[0], hi[1]


def pow_(x: Quad, e: int) -> Quad:
    one = (
        (1, 0, 0, 0)
        if isinstance(x[0], int)
        else tuple(np.full_like(x[0], v) for v in (1, 0, 0, 0))
    )
    result: Quad = one  # type: ignore[assignment]
    base = x
    while e:
        if e & 1:
            result = mul(result, base)
        base = mul(base, base)
        e >>= 1
    return result


@dataclass(frozen=True, slots=True)
class QM31:
    """A secure-field scalar."""

    a: int
    b: int
    c: int
    d: int

    def __post_init__(self) -> None:
        for v in (self.a, self.b, self.c, self.d):
            if not (isinstance(v, int) and 0 <= v < P):
                raise ValueError(f"QM31 coordinate {v!r} not an int in [0, p)")

    @staticmethod
    def of(x: Iterable[int]) -> QM31:
        return QM31(*(int(v) % P for v in x))

    @staticmethod
    def from_int(v: int) -> QM31:
        return QM31(v % P, 0, 0, 0)

    @staticmethod
    def zero() -> QM31:
        return QM31(0, 0, 0, 0)

    @staticmethod
    def one() -> QM31:
        return QM31(1, 0, 0, 0)

    @property
    def coords(self) -> tuple[int, int, int, int]:
        return self.a, self.b, self.c, self.d

    def __add__(self, o: QM31) -> QM31:
        return QM31(*add(self.coords, o.coords))

    def __sub__(self, o: QM31) -> QM31:
        return QM31(*sub(self.coords, o.coords))

    def __neg__(self) -> QM31:
        return QM31(*neg(self.coords))

    def __mul__(self, o: QM31 | int) -> QM31:
        if isinstance(o, int):
            return QM31(*mul_base(self.coords, o % P))
        return QM31(*mul(self.coords, o.coords))

    def square(self) -> QM31:
        return self * self

    def __pow__(self, e: int) -> QM31:
        return QM31(*pow_(self.coords, e)) if e >= 0 else self.inverse() ** (-e)

    def inverse(self) -> QM31:
        if self == QM31.zero():
            raise ZeroDivisionError("inverse of zero in QM31")
        return QM31(*inv(self.coords))

    def pack(self, prefix: int = 1) -> int:
        """prefix‖a‖b‖c‖d in 31-bit limbs: STWO's `pack_qm31`, also our calldata form."""
        acc = prefix
        for v in self.coords:
            acc = (acc << 31) | v
        return acc


class QM31Array:
    """A vector (or any shape) of QM31 values: int64 array of shape (..., 4)."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        if data.shape[-1:] != (4,):
            raise ValueError(f"QM31Array needs a trailing axis of 4, got shape {data.shape}")
        self.data = data

    @staticmethod
    def _of_quad(q: Quad) -> QM31Array:
        return QM31Array(np.stack(np.broadcast_arrays(*q), axis=-1))

    @staticmethod
    def from_signed(values: np.ndarray) -> QM31Array:
        """Signed integers (|x| ≤ (p−1)/2, any shape) as base-field elements, flattened."""
        return QM31Array.from_base(embed(np.asarray(values, dtype=np.int64).ravel()))

    @staticmethod
    def from_base(values: np.ndarray) -> QM31Array:
        v = np.asarray(values, dtype=np.int64)
        out = np.zeros((*v.shape, 4), dtype=np.int64)
        out[..., 0] = v
        return QM31Array(out)

    @staticmethod
    def broadcast(x: QM31, shape: tuple[int, ...]) -> QM31Array:
        return QM31Array(np.broadcast_to(np.array(x.coords, dtype=np.int64), (*shape, 4)).copy())

    @staticmethod
    def from_list(xs: Iterable[QM31]) -> QM31Array:
        return QM31Array(np.array([x.coords for x in xs], dtype=np.int64).reshape(-1, 4))

    @staticmethod
    def random(rng: np.random.Generator, shape: int | tuple[int, ...]) -> QM31Array:
        shape = (shape,) if isinstance(shape, int) else shape
        return QM31Array(rng.integers(0, P, size=(*shape, 4), dtype=np.int64))

    @property
    def quad(self) -> Quad:
        d = self.data
        return d[..., 0], d[..., 1], d[..., 2], d[..., 3]

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape[:-1]

    def __len__(self) -> int:
        return self.data.shape[0]

    def __getitem__(self, idx: object) -> QM31Array:
        return QM31Array(self.data[idx])  # type: ignore[index]

    def item(self, idx: int) -> QM31:
        return QM31(*(int(v) for v in self.data[idx]))

    def to_list(self) -> list[QM31]:
        return [QM31(*map(int, row)) for row in self.data.reshape(-1, 4)]

    def __add__(self, o: QM31Array | QM31) -> QM31Array:
        return _binary(cairn_native.qm31_add, self.data, _data(o))

    def __sub__(self, o: QM31Array | QM31) -> QM31Array:
        return _binary(cairn_native.qm31_sub, self.data, _data(o))

    def __neg__(self) -> QM31Array:
        return _binary(cairn_native.qm31_sub, _ZERO, self.data)

    def __mul__(self, o: QM31Array | QM31) -> QM31Array:
        return _binary(cairn_native.qm31_mul, self.data, _data(o))

    def mul_base(self, s: np.ndarray) -> QM31Array:
        """Multiply by M31 values (broadcast against the leading axes)."""
        s = np.asarray(s, dtype=np.int64)
        shape = np.broadcast_shapes(self.shape, s.shape)
        out = np.empty((*shape, 4), dtype=np.int64)
        cairn_native.qm31_mul_base(out, _operand(self.data, shape), _full(s, shape))
        return QM31Array(out)

    def square(self) -> QM31Array:
        return self * self

    def __pow__(self, e: int) -> QM31Array:
        return QM31Array._of_quad(pow_(self.quad, e))

    def inverse(self) -> QM31Array:
        """Batch inverse of every element (vectorized); raises on a zero."""
        if np.any(np.all(self.data == 0, axis=-1)):
            raise ZeroDivisionError("inverse of zero in QM31Array")
        return QM31Array._of_quad(inv(self.quad))

    def dot(self, o: QM31Array) -> QM31:
        """Σ self_i·o_i over two vectors of one shape, without the product vector."""
        if self.shape != o.shape:
            raise ValueError(f"dot of shapes {self.shape} and {o.shape}")
        a, b = np.ascontiguousarray(self.data), np.ascontiguousarray(o.data)
        return QM31(*cairn_native.qm31_dot(a, b))

    def dot_base(self, s: np.ndarray) -> QM31:
        """Σ self_i·s_i for base-field values s of the same shape."""
        s = np.ascontiguousarray(s, dtype=np.int64)
        if self.shape != s.shape:
            raise ValueError(f"dot of shapes {self.shape} and {s.shape}")
        return QM31(*cairn_native.qm31_dot_base(np.ascontiguousarray(self.data), s))

    def sum(self) -> QM31:
        """Sum of all elements (int64 sums are exact for < 2^32 elements)."""
        s = self.data.reshape(-1, 4).sum(axis=0) % P
        return QM31(*(int(v) for v in s))

    def __eq__(self, o: object) -> bool:
        return isinstance(o, QM31Array) and np.array_equal(self.data, o.data)

    __hash__ = None  # type: ignore[assignment]


_ZERO = np.zeros(4, dtype=np.int64)


def _data(o: QM31Array | QM31) -> np.ndarray:
    return np.array(o.coords, dtype=np.int64) if isinstance(o, QM31) else o.data


def _full(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """x broadcast to `shape` (leading axes), contiguous int64: what a native kernel reads."""
    if x.shape != shape:
        x = np.broadcast_to(x, shape)
    return np.ascontiguousarray(x, dtype=np.int64)


def _operand(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A QM31 operand of shape (..., 4) for a kernel: one value (which the kernel broadcasts)
    or every element of `shape`."""
    return np.ascontiguousarray(x, dtype=np.int64) if x.size == 4 else _full(x, (*shape, 4))


def _binary(kernel: Callable[..., None], a: np.ndarray, b: np.ndarray) -> QM31Array:
    """An elementwise native QM31 operation with numpy broadcasting over the leading axes."""
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    out = np.empty((*shape, 4), dtype=np.int64)
    kernel(out, _operand(a, shape), _operand(b, shape))
    return QM31Array(out)
