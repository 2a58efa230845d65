"""The layernorm proof's relations, written once for the prover (on columns) and the verifier
(on claimed values and closed forms): the two requant gadgets (normalise n, scale z), the LIMB
range of h's limbs, the stacked witness layout, and the linear identities that turn column
values into claims (docs/layers/layernorm.md, "Protocol").

LogUp instances, in this order: normalise's four (prover/layers/requant/relations.py), scale's
four, then the LIMB witness (σ, x: lo, then hi + 2^(w−1)) and the LIMB table [0, 2^w).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.layernorm.params import LayerNormParams
from cairn.prover.layers.layernorm.proof import LayerNormProof, LimbColumns, StatisticsStep
from cairn.prover.layers.requant import relations as requant
from cairn.prover.layers.requant.proof import RequantColumns
from cairn.prover.mle import evaluate, pad_tensor, prefix_mask
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.stack import StackLayout, check_stacks, stack_claims
from cairn.prover.softmax.relations import STACK_VARS, Key
from cairn.prover.softmax.structured import index_mle
from cairn.prover.walk.layer import LayerClaims

TAG = "cairn/layernorm/v1"
"""The domain tag of the Blake2s sub-transcript forked from the walk."""
STACKS = "layernorm"
"""The statement names the witness stacks layernorm.0, layernorm.1, …"""
NORM, SCALE, LIMB = slice(0, 4), slice(4, 8), slice(8, 10)
"""Each relation's instances in the batch."""
BALANCED = (([0], [2]), ([1], [3]), ([4], [6]), ([5], [7]), ([8], [9]))
GADGETS = ("norm", "scale")
"""The column-name prefixes of the two requantizations."""


@dataclass(frozen=True)
class Relations:
    """Both gadgets' keys (requant's α_R, α_C, β_C each), then the LIMB key α_L − v."""

    norm: requant.Relations
    scale: requant.Relations
    limb: Key

    @staticmethod
    def draw(channel: Channel) -> Relations:
        """normalise's three challenges, scale's three, then α_L."""
        norm = requant.Relations.draw(channel)
        scale = requant.Relations.draw(channel)
        return Relations(norm, scale, Key(channel.draw_secure_felt(), ()))

    def limb_denominators(
        self, p: LayerNormParams, lo: np.ndarray, hi: np.ndarray
    ) -> list[QM31Array]:
        """The LIMB witness (lo, then hi + 2^(w−1)) and table keys on every leaf."""
        blocks = np.concatenate([lo.ravel(), hi.ravel() + p.offset])
        return [
            self.limb.of(QM31Array.from_signed(blocks)),
            self.limb.of(QM31Array.from_signed(np.arange(1 << p.limb_bits))),
        ]

    def limb_keys_at(
        self, p: LayerNormParams, points: Sequence[Sequence[QM31]], cols: LimbColumns
    ) -> list[QM31]:
        """The same keys' MLEs: the witness point is (σ, ρ), the table's the index MLE."""
        sigma = points[0][0]
        block = cols.lo + (cols.hi + QM31.from_int(p.offset) - cols.lo) * sigma
        return [self.limb.of(block), self.limb.of(index_mle(points[1]))]


def instance_vars(n: int, p: LayerNormParams) -> list[int]:
    """Variables of each instance for 2^n entries (n = ⌈log₂ s⌉ + ⌈log₂ d⌉)."""
    return [
        *requant.instance_vars(n, p.norm),
        *requant.instance_vars(n, p.scale),
        n + 1,
        p.limb_bits,
    ]


def column_vars(n: int, p: LayerNormParams) -> dict[str, int]:
    """Every committed column: both gadgets' (prefixed), the limbs and the LIMB multiplicity."""
    out = {"h.lo": n, "h.hi": n, "h.m": p.limb_bits}
    for prefix, gadget in zip(GADGETS, (p.norm, p.scale), strict=True):
        out |= {f"{prefix}.{c}": v for c, v in requant.column_vars(n, gadget).items()}
    return out


def witness_layout(n: int, p: LayerNormParams) -> StackLayout:
    return StackLayout.of(column_vars(n, p), STACK_VARS)


def check_commitments(
    n: int, p: LayerNormParams, witness: Mapping[str, Commitment]
) -> list[Commitment]:
    """`layernorm.commitment` unless the witness is exactly the layout's stacks, one hash."""
    return check_stacks(STACKS, witness_layout(n, p), witness)


def gadget_claims(
    prefix: str, points: Sequence[Sequence[QM31]], cols: RequantColumns, output: Claim
) -> dict[str, list[Claim]]:
    """A gadget's column claims at its LogUp points, plus its output y at `output`."""
    claims = requant.column_claims(points, cols)
    claims["y"].append(output)
    return {f"{prefix}.{name}": c for name, c in claims.items()}


def limb_claims(
    points: Sequence[Sequence[QM31]], cols: LimbColumns, at: Sequence[QM31], lo: QM31, hi: QM31
) -> dict[str, list[Claim]]:
    """lo, hi at ρ (the LIMB witness point's suffix) and at the statistics' point `at`; the
    multiplicity at the table point."""
    rho, at = tuple(points[0][1:]), tuple(at)
    return {
        "h.lo": [Claim(rho, cols.lo), Claim(at, lo)],
        "h.hi": [Claim(rho, cols.hi), Claim(at, hi)],
        "h.m": [Claim(tuple(points[1]), cols.m)],
    }


def recompose(w: int, lo: QM31, hi: QM31) -> QM31:
    """h̃ = l̃o + 2^w·h̃i: linear, so it holds of the MLEs at any point."""
    return lo + hi * (1 << w)


def scaled_output(y: Claim, beta: QM31, row_vars: int, s: int) -> Claim:
    """z̃(r) = ỹ(r) − [i < s]~(r_rows)·β̃(r_cols): y = z + β on the s real rows (zero past)."""
    return Claim(y.point, y.value - prefix_mask(y.point[:row_vars], s) * beta)


def centred_to_input(c: QM31, mean: QM31, cols: Sequence[QM31], d: int) -> QM31:
    """h̃ = c̃ + μ̃(rows)·[j < d]~(cols): c = h − μ on the d real columns (zero past)."""
    return c + mean * prefix_mask(cols, d)


def factor_table(factors: np.ndarray) -> np.ndarray:
    """r over the ŝ padded rows as canonical M31 values: r may exceed (p − 1)/2 (a constant row
    has r = 2^R·d), so it enters as r mod p; (h − μ)·r ≡ (h − μ)·(r mod p) is all the field
    identity needs."""
    return pad_tensor(np.asarray(factors, dtype=np.int64)) % P


def factors_mle(factors: np.ndarray, point: Sequence[QM31]) -> QM31:
    """r̃ at a row point."""
    return evaluate(factor_table(factors), point)


@dataclass(frozen=True)
class StepPoints:
    """Where the protocol's steps leave their claims: ρ = (ρ_rows, ρ_cols) the LogUp's entry
    point, κ_cols the scale step's end, κ_rows the normalise step's, π the statistics', and
    the walk's output point on y."""

    rho_rows: tuple[QM31, ...]
    rho_cols: tuple[QM31, ...]
    kappa_cols: tuple[QM31, ...]
    kappa_rows: tuple[QM31, ...]
    pi: tuple[QM31, ...]
    output: tuple[QM31, ...]

    @property
    def output_cols(self) -> tuple[QM31, ...]:
        return self.output[len(self.rho_rows) :]


def layer_claims(
    p: LayerNormParams, proof: LayerNormProof, at: StepPoints, mean: QM31
) -> LayerClaims:
    """What the walk settles: h at (κ_rows, ρ_cols) from the normalise step (c + μ, `mean`
    = μ̃(κ_rows)) and at π from the limbs; γ where the scale step ended; β at the output's
    column point."""
    h = centred_to_input(proof.norm_step.right, mean, at.rho_cols, p.d)
    return LayerClaims(
        {
            "h": [
                Claim((*at.kappa_rows, *at.rho_cols), h),
                Claim(at.pi, recompose(p.limb_bits, proof.statistics.lo, proof.statistics.hi)),
            ]
        },
        {
            "beta": [Claim(at.output_cols, proof.beta)],
            "gamma": [Claim(at.kappa_cols, proof.scale_step.left)],
        },
    )


def absorb_claims(channel: Channel, claims: LayerClaims) -> None:
    """Mix every claim handed to the walk, inputs then weights, each in name order."""
    for group in (claims.inputs, claims.weights):
        for name in sorted(group):
            for c in group[name]:
                channel.mix_felts([*c.point, c.value])


def opening_claims(
    p: LayerNormParams,
    points: Sequence[Sequence[QM31]],
    at: StepPoints,
    sent: tuple[RequantColumns, RequantColumns, LimbColumns],
    ends: tuple[QM31, QM31, StatisticsStep],
    y: Claim,
    s: int,
) -> dict[str, list[Claim]]:
    """What the walk's witness opening proves, by stack: each gadget's columns at its LogUp
    points; n at (ρ_rows, κ_cols) where the scale step ended (its `right`); z at the output
    point (z = y − β, with β̃ there sent); the limbs at ρ and at π (`ends`: n's value, β̃, the
    statistics step)."""
    norm, scale, limbs = sent
    n_value, beta, stats = ends
    n_claim = Claim((*at.rho_rows, *at.kappa_cols), n_value)
    claims = (
        gadget_claims("norm", points[NORM], norm, n_claim)
        | gadget_claims("scale", points[SCALE], scale, scaled_output(y, beta, len(at.rho_rows), s))
        | limb_claims(points[LIMB], limbs, at.pi, stats.lo, stats.hi)
    )
    return stack_claims(STACKS, witness_layout(len(at.rho_rows) + len(at.rho_cols), p), claims)
