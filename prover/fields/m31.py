"""The Mersenne-31 field: p = 2^31 - 1.

Arrays are int64 numpy arrays holding canonical values in [0, p): a product of two values
fits in 62 bits, and a difference of two products stays inside int64, so reductions can be
deferred by one operation.
"""

from __future__ import annotations

from dataclasses import dataclass

import cairn_native
import numpy as np

P = (1 << 31) - 1
HALF = (P - 1) // 2

Coord = int | np.ndarray
"""A coordinate: a Python int or an int64 array, both holding values in [0, p)."""


def inv_coord(x: Coord) -> Coord:
    """x^-1 mod p (Fermat for an int, one native batch inversion for an array); raises
    ZeroDivisionError on a zero."""
    if isinstance(x, int):
        if x % P == 0:
            raise ZeroDivisionError("inverse of zero in M31")
        return pow(x, P - 2, P)
    return batch_inverse(x)


def max_magnitude(arr: np.ndarray) -> int:
    """max |x| as a Python int: np.abs would wrap -2^63 to itself and pass range checks."""
    return max(-int(arr.min()), int(arr.max())) if arr.size else 0


def embed(values: np.ndarray | int) -> np.ndarray:
    """Signed integers with |x| <= (p-1)/2 -> canonical M31 values (x mod p)."""
    arr = np.asarray(values, dtype=np.int64)
    if max_magnitude(arr) > HALF:
        raise ValueError(f"value out of the signed M31 range |x| <= {HALF}")
    return arr % P


def lift(values: np.ndarray) -> np.ndarray:
    """Canonical M31 values -> signed integers in [-(p-1)/2, (p-1)/2] (inverse of embed)."""
    arr = np.asarray(values, dtype=np.int64)
    return np.where(arr > HALF, arr - P, arr)


def random_array(rng: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray:
    """Uniform canonical M31 values."""
    return rng.integers(0, P, size=shape, dtype=np.int64)


def batch_inverse(values: np.ndarray) -> np.ndarray:
    """Inverse of every element of an M31 array (Montgomery's trick, natively); raises
    ZeroDivisionError on a zero."""
    x = np.ascontiguousarray(values, dtype=np.int64)
    out = np.empty_like(x)
    cairn_native.m31_batch_inverse(out, x)
    return out


@dataclass(frozen=True, slots=True)
class M31:
    """A base-field scalar."""

    value: int

    def __post_init__(self) -> None:
        if not 0 <= self.value < P:
            raise ValueError(f"M31 value {self.value} not in [0, p)")

    @staticmethod
    def of(x: int) -> M31:
        return M31(x % P)

    def __add__(self, o: M31) -> M31:
        return M31((self.value + o.value) % P)

    def __sub__(self, o: M31) -> M31:
        return M31((self.value - o.value) % P)

    def __mul__(self, o: M31) -> M31:
        return M31(self.value * o.value % P)

    def __neg__(self) -> M31:
        return M31(-self.value % P)

    def square(self) -> M31:
        return self * self

    def __pow__(self, e: int) -> M31:
        return M31(pow(self.value, e, P)) if e >= 0 else self.inverse() ** (-e)

    def inverse(self) -> M31:
        return M31(inv_coord(self.value))
