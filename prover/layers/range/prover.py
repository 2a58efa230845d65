"""Range prover: commit the multiplicities, |w| and limbs before any challenge, then on a Blake2s
fork of the walk's channel prove every lookup with one LogUp-GKR, send |w|'s MLE at the leaves'
point, and hand the walk the claims on the weights and the witness (docs/layers/range.md,
"Protocol")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.layers.range.proof import RangeProof
from cairn.prover.layers.range.relations import (
    STACKS,
    TAG,
    RangeLayout,
    abs_name,
    draw_challenges,
    fractions,
    leaf_claims,
    weight_name,
)
from cairn.prover.lookups.prover import prove_logup
from cairn.prover.mle import evaluate
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.pcs.stack import commit_stacks
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class RangeAdvice:
    keys: dict[str, np.ndarray]
    counts: dict[str, np.ndarray]


def _weights(st: Statement, layout: RangeLayout) -> list[np.ndarray]:
    return [st.weights[weight_name(i)] for i in range(len(layout.weights))]


def advise_range(st: Statement, pcs: PcsParams) -> tuple[dict[str, CommitmentData], RangeAdvice]:
    layout = RangeLayout.of(st.dims)
    keys = layout.keys(_weights(st, layout))
    counts = layout.multiplicities(keys)
    witness = layout.witness()
    columns = counts | {n: v for n, v in keys.items() if n in witness.sizes}
    return commit_stacks(STACKS, witness, columns, pcs), RangeAdvice(keys, counts)


def absorb_claims(parent: Channel, weights: dict[str, list[Claim]]) -> None:
    """After the join, the claims handed to the walk, point then value, in name order."""
    for name in sorted(weights):
        for c in weights[name]:
            parent.mix_felts([*c.point, c.value])


def prove_range(
    st: Statement, outputs: dict[str, Claim], parent: Channel, advice: RangeAdvice
) -> tuple[RangeProof, LayerClaims]:
    layout = RangeLayout.of(st.dims)
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    challenges = draw_challenges(channel, layout)
    instances = fractions(layout, challenges, advice.keys, advice.counts)
    logup, leaves = prove_logup(instances, channel)
    column = {c.weight: j for j, c in enumerate(layout.columns)}
    magnitudes = [
        evaluate(advice.keys[abs_name(i)], leaves[column[i]].point) for i in layout.summed
    ]
    channel.mix_felts(magnitudes)
    weights, witness = leaf_claims(layout, challenges, leaves, magnitudes, outputs)
    join(parent, channel)  # type: ignore[arg-type]
    absorb_claims(parent, weights)
    return RangeProof(logup, magnitudes), LayerClaims({}, weights, witness)
