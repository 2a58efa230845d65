"""The batched LogUp-GKR prover (docs/lookups.md): build every fraction tree, send the roots,
then walk the layers from the roots to the leaves with one sum-check each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.prover.channels.base import Channel
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.lookups.circuit import active, flatten, reduce_mask
from cairn.prover.lookups.proof import GkrLayer, LogUpProof
from cairn.prover.lookups.sumcheck import LayerShare, prove_layer
from cairn.prover.lookups.verifier import LeafClaim
from cairn.prover.mle import log2_exact

Level = tuple[QM31Array | None, QM31Array]  # (p, q) of one tree level; p None: all ones


@dataclass(frozen=True)
class Fractions:
    """One instance's leaves p(x)/q(x) over n_vars = log2(len(denominators)) variables.

    numerators None means all ones (the witness side, "singles")."""

    numerators: QM31Array | None
    denominators: QM31Array

    def __post_init__(self) -> None:
        log2_exact(len(self.denominators))
        if self.numerators is not None and self.numerators.shape != self.denominators.shape:
            raise ValueError(
                f"{self.numerators.shape} numerators for {self.denominators.shape} denominators"
            )

    @property
    def n_vars(self) -> int:
        return log2_exact(len(self.denominators))


def parent(level: Level) -> Level:
    """One level up, the child being the last variable:
    p(x) = p(x,0)q(x,1) + p(x,1)q(x,0), q(x) = q(x,0)q(x,1)."""
    p, q = level
    q0, q1 = q[0::2], q[1::2]
    p_up = q0 + q1 if p is None else p[0::2] * q1 + p[1::2] * q0
    return p_up, q0 * q1


def tree(fractions: Fractions) -> list[Level]:
    """The levels by number of variables: index 0 is the root, index n_vars the leaves."""
    levels: list[Level] = [(fractions.numerators, fractions.denominators)]
    while len(levels[-1][1]) > 1:
        levels.append(parent(levels[-1]))
    return levels[::-1]


def children(level: Level) -> tuple[QM31Array | None, QM31Array | None, QM31Array, QM31Array]:
    """p(x,0), p(x,1), q(x,0), q(x,1): the even and odd entries (the child is the last bit)."""
    p, q = level
    if p is None:
        return None, None, q[0::2], q[1::2]
    return p[0::2], p[1::2], q[0::2], q[1::2]


def prove_logup(
    instances: Sequence[Fractions], channel: Channel
) -> tuple[LogUpProof, list[LeafClaim]]:
    """The proof and the claims it leaves on every instance's leaf MLEs (which the caller must
    settle: numerators against 1 or the committed multiplicities, denominators against keys)."""
    trees = [tree(f) for f in instances]
    n_vars = [f.n_vars for f in instances]
    n = max(n_vars, default=0)
    roots = [[QM31.one() if t[0][0] is None else t[0][0].item(0), t[0][1].item(0)] for t in trees]
    channel.mix_felts(flatten(roots))
    claims = [list(r) for r in roots]
    point: list[QM31] = []
    layers: list[GkrLayer] = []
    for j in range(n):
        act = active(n_vars, j)
        unused = [n - n_vars[i] for i in act]
        channel.mix_felts(flatten([claims[i] for i in act]))
        a = channel.draw_secure_felt()
        lam = channel.draw_secure_felt()
        shares = [
            LayerShare(
                children(trees[i][j - u + 1]),
                point[u:],
                claims[i][0] + lam * claims[i][1],
                u,
                lam,
            )
            for i, u in zip(act, unused, strict=True)
        ]
        sumcheck, s, masks = prove_layer(shares, j, a, channel)
        channel.mix_felts(flatten(masks))
        rho = channel.draw_secure_felt()
        point = [*s, rho]
        for i, mask in zip(act, masks, strict=True):
            claims[i] = reduce_mask(mask, rho)
        layers.append(GkrLayer(sumcheck, masks))
    leaves = [LeafClaim(tuple(point[n - k :]), *claims[i]) for i, k in enumerate(n_vars)]
    return LogUpProof(roots, layers), leaves
