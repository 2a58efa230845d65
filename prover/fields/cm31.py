"""CM31 = M31[i] / (i^2 + 1); coordinates (a, b) mean a + b*i."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.m31 import Coord, P, inv_coord

Pair = tuple[Coord, Coord]


def add(x: Pair, y: Pair) -> Pair:
    return (x[0] + y[0]) % P, (x[1] + y[1]) % P


def sub(x: Pair, y: Pair) -> Pair:
    return (x[0] - y[0]) % P, (x[1] - y[1]) % P


def mul(x: Pair, y: Pair) -> Pair:
    return (x[0] * y[0] - x[1] * y[1]) % P, (x[0] * y[1] + x[1] * y[0]) % P


def inv(x: Pair) -> Pair:
    """(a + bi)^-1 = (a - bi) / (a^2 + b^2)."""
    norm_inv = inv_coord((x[0] * x[0] + x[1] * x[1]) % P)
    return x[0] * norm_inv % P, (-x[1] % P) * norm_inv % P


@dataclass(frozen=True, slots=True)
class CM31:
    """A CM31 scalar."""

    a: int
    b: int

    def __post_init__(self) -> None:
        if not (0 <= self.a < P and 0 <= self.b < P):
            raise ValueError(f"CM31 coordinates {(self.a, self.b)} not in [0, p)")

    def __add__(self, o: CM31) -> CM31:
        return CM31(*add((self.a, self.b), (o.a, o.b)))

    def __sub__(self, o: CM31) -> CM31:
        return CM31(*sub((self.a, self.b), (o.a, o.b)))

    def __mul__(self, o: CM31) -> CM31:
        return CM31(*mul((self.a, self.b), (o.a, o.b)))

    def __neg__(self) -> CM31:
        return CM31(-self.a % P, -self.b % P)

    def square(self) -> CM31:
        return self * self

    def inverse(self) -> CM31:
        return CM31(*inv((self.a, self.b)))
