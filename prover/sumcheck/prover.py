"""Sum-check prover for sum_x sum_t coeff_t * prod_{j in t} f_j(x)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.linalg import matmul_mod_p
from cairn.prover.mle import fold, log2_exact
from cairn.prover.sumcheck.proof import MAX_DEGREE, SumcheckProof


@dataclass(frozen=True)
class Product:
    """One term of the summand: coeff * prod of the MLEs at `mles` (indices, with repeats)."""

    mles: tuple[int, ...]
    coeff: QM31 = QM31(1, 0, 0, 0)  # noqa: RUF009 (frozen, immutable)


def _interpolation_matrix(degree: int) -> np.ndarray:
    """M31 matrix mapping g(0..d) to the coefficients of g (inverse Vandermonde)."""
    n = degree + 1
    vander = [[Fraction(t**k) for k in range(n)] for t in range(n)]
    inv = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    for col in range(n):  # Gauss-Jordan over the rationals; tiny and exact
        piv = vander[col][col]
        vander[col] = [v / piv for v in vander[col]]
        inv[col] = [v / piv for v in inv[col]]
        for row in range(n):
            if row != col and vander[row][col]:
                f = vander[row][col]
                vander[row] = [a - f * b for a, b in zip(vander[row], vander[col], strict=True)]
                inv[row] = [a - f * b for a, b in zip(inv[row], inv[col], strict=True)]
    return np.array(
        [[v.numerator % P * pow(v.denominator, P - 2, P) % P for v in row] for row in inv],
        dtype=np.int64,
    )


def prove_sumcheck(
    mles: Sequence[QM31Array],
    products: Sequence[Product],
    channel: Channel,
) -> tuple[SumcheckProof, list[QM31], list[QM31]]:
    """Run all rounds; returns the proof, the point r, and every MLE evaluated at r."""
    degree = max(len(t.mles) for t in products)
    if degree > MAX_DEGREE:
        raise ValueError(f"sum-check degree {degree} exceeds {MAX_DEGREE}")
    n_vars = log2_exact(len(mles[0]))
    to_coeffs = _interpolation_matrix(degree)
    tables = list(mles)
    rounds: list[list[QM31]] = []
    point: list[QM31] = []
    for _ in range(n_vars):
        half = len(tables[0]) // 2
        lows = [f[:half] for f in tables]
        steps = [f[half:] - f[:half] for f in tables]
        evals = np.zeros((degree + 1, 4), dtype=np.int64)
        at_t = lows
        for t in range(degree + 1):
            if t:
                at_t = [v + s for v, s in zip(at_t, steps, strict=True)]
            total = QM31.zero()
            for term in products:
                acc = at_t[term.mles[0]]
                for j in term.mles[1:]:
                    acc = acc * at_t[j]
                total = total + acc.sum() * term.coeff
            evals[t] = total.coords
        coeffs = matmul_mod_p(to_coeffs, evals)  # (d+1, 4): c0 .. cd
        sent = [QM31(*map(int, coeffs[i])) for i in range(degree + 1) if i != 1]
        channel.mix_felts(sent)
        r = channel.draw_secure_felt()
        rounds.append(sent)
        point.append(r)
        tables = [fold(f, r) for f in tables]
    return SumcheckProof(rounds), point, [f.item(0) for f in tables]
