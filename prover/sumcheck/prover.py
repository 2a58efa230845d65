"""Sum-check prover for sum_x sum_t coeff_t * prod_{j in t} f_j(x)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import cairn_native
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
    """Run all rounds; returns the proof, the point r, and every MLE evaluated at r.

    The sum is over the variables of the largest MLE. A smaller MLE (k variables) is read on
    the last k of them, as if tiled over the first ones: a product of such MLEs (all MLEs of
    one product have one size) is constant in the first variables, so until its turn it adds
    2^(left − 1 − k)·Σ_x Π f(x) to every evaluation, and its MLEs are folded only in the last
    k rounds (the same proof as tiling them, without the tiles).
    """
    degree = max(len(t.mles) for t in products)
    if degree > MAX_DEGREE:
        raise ValueError(f"sum-check degree {degree} exceeds {MAX_DEGREE}")
    sizes = [log2_exact(len(f)) for f in mles]
    term_vars = [sizes[t.mles[0]] for t in products]
    if any(sizes[j] != k for t, k in zip(products, term_vars, strict=True) for j in t.mles):
        raise ValueError("the MLEs of one product must have one size")
    n_vars = max(sizes)
    to_coeffs = _interpolation_matrix(degree)
    tables = list(mles)
    waiting: dict[int, QM31] = {}  # Σ_x coeff·Π f(x) of the products not yet started
    rounds: list[list[QM31]] = []
    point: list[QM31] = []
    for left in range(n_vars, 0, -1):
        active = [i for i, k in enumerate(term_vars) if k >= left]
        evals = _round_evals(tables, [products[i] for i in active], degree)
        for i, k in enumerate(term_vars):
            if k < left:
                if i not in waiting:
                    waiting[i] = _product_sum(tables, products[i])
                constant = waiting[i] * (1 << (left - 1 - k))
                evals = [e + constant for e in evals]
        at = np.array([e.coords for e in evals], dtype=np.int64)
        coeffs = matmul_mod_p(to_coeffs, at)  # (d+1, 4): c0 .. cd
        sent = [QM31(*map(int, coeffs[i])) for i in range(degree + 1) if i != 1]
        channel.mix_felts(sent)
        r = channel.draw_secure_felt()
        rounds.append(sent)
        point.append(r)
        tables = [fold(f, r) if k >= left else f for f, k in zip(tables, sizes, strict=True)]
    return SumcheckProof(rounds), point, [f.item(0) for f in tables]


@dataclass(frozen=True)
class Pair:
    """One product w·f of a pair sum-check: f canonical M31 values (2^k), w a QM31 table of
    the same size built by `weights()` when the product's rounds start, and `total` = Σ_x
    w(x)·f(x), which the rounds before need (a merge knows it: the claims' combination)."""

    weights: Callable[[], QM31Array]
    values: np.ndarray
    total: QM31


def prove_pair_sumcheck(
    pairs: Sequence[Pair], channel: Channel
) -> tuple[SumcheckProof, list[QM31], list[QM31]]:
    """prove_sumcheck of the products w_j·f_j (the same proof, point and channel), returning
    each f_j at the point instead of every MLE.

    The claim merges of the PCS and the walk are such sums, with f_j a committed or hidden
    table of base values. A round of degree 2 sends its constant and leading coefficients,
    c0 = Σ lo_w·lo_f and c2 = Σ (hi_w − lo_w)·(hi_f − lo_f): two products per x, never
    interpolated. A product's first round multiplies by base values and its first fold
    lifts f_j to QM31 at half the size, so no table is lifted whole; its weights are built
    only when its rounds start (until then it adds total·2^(left − 1 − k) to c0, as in
    prove_sumcheck); each fold computes the next round in the same pass
    (cairn_native.pair_fold).
    """
    sizes = [log2_exact(len(pair.values)) for pair in pairs]
    tables: dict[int, tuple[QM31Array, np.ndarray]] = {}  # started products: (w, f)
    coeffs: dict[int, tuple[QM31, ...]] = {}  # their (c0, c2) for this round
    rounds: list[list[QM31]] = []
    point: list[QM31] = []
    finals = {j: QM31.from_int(int(p.values[0])) for j, p in enumerate(pairs) if len(p.values) == 1}
    for left in range(max(sizes), 0, -1):
        c0, c2 = QM31.zero(), QM31.zero()
        for j, (pair, k) in enumerate(zip(pairs, sizes, strict=True)):
            if k == left:
                w, f = pair.weights(), np.ascontiguousarray(pair.values, dtype=np.int64)
                tables[j], coeffs[j] = (w, f), _quads(cairn_native.pair_round(w.data, f))
            if k >= left:
                c0, c2 = c0 + coeffs[j][0], c2 + coeffs[j][1]
            else:
                c0 = c0 + pair.total * (1 << (left - 1 - k))
        channel.mix_felts([c0, c2])
        rounds.append([c0, c2])
        r = channel.draw_secure_felt()
        point.append(r)
        for j, (w, f) in tables.items():
            w_out = np.empty((len(w) // 2, 4), dtype=np.int64)
            f_out = np.empty((len(w) // 2, 4), dtype=np.int64)
            coeffs[j] = _quads(cairn_native.pair_fold(w_out, f_out, w.data, f, r.coords))
            tables[j] = (QM31Array(w_out), f_out)
    finals |= {j: QM31(*map(int, f[0])) for j, (_, f) in tables.items()}
    return SumcheckProof(rounds), point, [finals[j] for j in range(len(pairs))]


def _quads(values: Sequence[Sequence[int]]) -> tuple[QM31, ...]:
    return tuple(QM31(*v) for v in values)


def _round_evals(tables: list[QM31Array], products: list[Product], degree: int) -> list[QM31]:
    """Σ_term coeff·Σ_x Π f(t, x) at t = 0..degree over the products' current tables."""
    totals = [QM31.zero()] * (degree + 1)
    if not products:
        return totals
    sums = product_sums(tables, [term.mles for term in products], degree)
    for term, at in zip(products, sums, strict=True):
        totals = [total + v * term.coeff for total, v in zip(totals, at, strict=True)]
    return totals


def product_sums(
    tables: Sequence[QM31Array], products: Sequence[Sequence[int]], degree: int
) -> list[list[QM31]]:
    """Per product, Σ_x Π_(j in product) f_j(t, x) at t = 0..degree: a round's sums, one
    native pass. f_j(t, ·) = lo + t·(hi − lo) on the halves of table j, or table j itself when
    it has half the length of the largest (a factor constant in the round's variable)."""
    used = sorted({j for product in products for j in product})
    index = {j: i for i, j in enumerate(used)}
    flat = cairn_native.sumcheck_sums(
        [np.ascontiguousarray(tables[j].data) for j in used],
        [[index[j] for j in product] for product in products],
        degree,
    )
    return [
        [QM31(*flat[p * (degree + 1) + t]) for t in range(degree + 1)] for p in range(len(products))
    ]


def _product_sum(tables: list[QM31Array], term: Product) -> QM31:
    """coeff·Σ_x Π f(x) of one product over its whole tables."""
    acc = tables[term.mles[0]]
    for j in term.mles[1:]:
        acc = acc * tables[j]
    return acc.sum() * term.coeff
