"""The prover's kernel for one layer's batched sum-check (docs/lookups.md, "Prover").

It produces exactly the transcript and proof of `prove_sumcheck` run on the products
eq·p0·q1 + eq·p1·q0 + λ·eq·q0·q1 of every active instance (weighted by a^k, smaller instances
tiled over the variables they ignore), without tiling and without multiplying eq in: eq(r, x)
factors into eq(r₁, x₁)·eq(r_rest, x_rest), so a round needs the degree-2 sums
h(t) = Σ eq(r_rest, x')·gate(t, x') (at t = 0, 1, 2, one native pass, then h(∞)) and
multiplies by the linear eq(r₁, X) on scalars; each fold computes the next round's sums in the
same pass (cairn_native.gate_fold).
"""

from __future__ import annotations

from collections.abc import Sequence

import cairn_native
import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.lookups.circuit import combine
from cairn.prover.mle import eq_eval, eq_table
from cairn.prover.sumcheck.proof import SumcheckProof

HALF = QM31.from_int(2).inverse()


class LayerShare:
    """One active instance's part of a layer's sum-check, folded round by round.

    `children` are p(x,0), p(x,1), q(x,0), q(x,1) over the instance's own variables (p None:
    all ones, the leaves of singles); `point` is its claim point, `claim` its p + λ·q there,
    `unused` the sum-check variables it ignores (the first ones). The gate is kept as
    u·q1 + p1·q0 with the table u = p0 + λ·q0 (folding is linear, so u folds like the others):
    two products per evaluation instead of three, one for singles."""

    def __init__(
        self,
        children: tuple[QM31Array | None, QM31Array | None, QM31Array, QM31Array],
        point: Sequence[QM31],
        claim: QM31,
        unused: int,
        lam: QM31,
    ) -> None:
        p0, p1, q0, q1 = children
        self.lam = lam
        u = q0 * lam + (QM31.one() if p0 is None else p0)
        tables = [u, q0, q1] if p1 is None else [u, q0, q1, p1]  # no p1: singles, p1 = 1
        self.tables = [np.ascontiguousarray(t.data) for t in tables]
        self.point = list(point)
        self.claim = claim
        self.unused = unused
        self.eq_rest = eq_table(self.point[1:]).data  # eq(r_rest, ·) of the current variable
        self.prefix = QM31.one()  # Π eq(r_m, s_m) over the own variables already fixed
        self.sums: tuple[QM31, ...] | None = None  # h(0), h(1), h(2), once computed

    def round_poly(self, round_: int) -> list[QM31]:
        """Coefficients g0..g3 of this instance's round polynomial."""
        if round_ < self.unused:  # constant in X: the rest of the sum, counted 2^(ignored left)
            return [self.claim * (1 << (self.unused - round_ - 1)), *[QM31.zero()] * 3]
        # h(t) = Σ eq(r_rest, x')·(u·q1 + p1·q0)(t, x') at t = 0, 1, 2 in one pass (eq_rest,
        # half as long, is constant in t; p1 = 1 for singles); h(∞) is its leading coefficient.
        if self.sums is None:  # the share's first round; later ones come from `fold`
            self.sums = _quads(cairn_native.gate_sums(self.eq_rest, self.tables))
        h0, h1, h2 = self.sums
        h_inf = (h2 - h1 - h1 + h0) * HALF
        h_lin = h1 - h0 - h_inf
        r = self.point[round_ - self.unused]
        one = QM31.one()
        e0 = self.prefix * (one - r)  # eq(r, X)·prefix = e0 + e1·X
        e1 = self.prefix * (r + r - one)
        return [e0 * h0, e0 * h_lin + e1 * h0, e0 * h_inf + e1 * h_lin, e1 * h_inf]

    def fold(self, round_: int, s: QM31) -> None:
        """Fix the current variable to the drawn s."""
        if round_ < self.unused:
            return
        self.prefix = self.prefix * eq_eval([self.point[round_ - self.unused]], [s])
        h = len(self.eq_rest)
        folded = [np.empty((h, 4), dtype=np.int64) for _ in self.tables]
        eq_rest = np.empty((h // 2, 4), dtype=np.int64)
        sums = cairn_native.gate_fold(folded, eq_rest, self.eq_rest, self.tables, s.coords)
        self.tables, self.sums = folded, _quads(sums)
        if h > 1:
            self.eq_rest = eq_rest

    def mask(self) -> list[QM31]:
        """[p(s,0), p(s,1), q(s,0), q(s,1)] once every variable is fixed."""
        u, q0, q1, *p1 = (QM31(*map(int, t[0])) for t in self.tables)
        return [u - self.lam * q0, p1[0] if p1 else QM31.one(), q0, q1]


def prove_layer(
    shares: Sequence[LayerShare], n_rounds: int, a: QM31, channel: Channel
) -> tuple[SumcheckProof, list[QM31], list[list[QM31]]]:
    """Run the layer's sum-check: [c0, c2, c3] per round as `prove_sumcheck` sends them."""
    rounds: list[list[QM31]] = []
    point: list[QM31] = []
    for i in range(n_rounds):
        polys = [share.round_poly(i) for share in shares]
        coeffs = [combine([g[d] for g in polys], a) for d in range(4)]
        sent = [coeffs[0], coeffs[2], coeffs[3]]
        channel.mix_felts(sent)
        s = channel.draw_secure_felt()
        rounds.append(sent)
        point.append(s)
        for share in shares:
            share.fold(i, s)
    return SumcheckProof(rounds), point, [share.mask() for share in shares]


def _quads(values: Sequence[Sequence[int]]) -> tuple[QM31, ...]:
    return tuple(QM31(*v) for v in values)
