"""Range prover: commit the multiplicities and limbs before any challenge, then on a Blake2s fork
of the walk's channel prove every lookup with one LogUp-GKR and hand the walk its leaves' claims
on the weights and the witness (docs/layers/range.md, "Protocol")."""

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
    draw_alphas,
    fractions,
    leaf_claims,
    weight_name,
)
from cairn.prover.lookups.prover import prove_logup
from cairn.prover.pcs.params import WITNESS_PCS
from cairn.prover.pcs.prover import CommitmentData, commit
from cairn.prover.pcs.stack import stack_names
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class RangeAdvice:
    keys: dict[str, np.ndarray]
    counts: dict[str, np.ndarray]


def _weights(st: Statement, layout: RangeLayout) -> list[np.ndarray]:
    return [st.weights[weight_name(i)] for i in range(len(layout.weights))]


def advise_range(st: Statement) -> tuple[dict[str, CommitmentData], RangeAdvice]:
    layout = RangeLayout.of(st.dims)
    keys = layout.keys(_weights(st, layout))
    counts = layout.multiplicities(keys)
    witness = layout.witness()
    columns = counts | {n: v for n, v in keys.items() if n in witness.sizes}
    made = [commit(values, WITNESS_PCS)[1] for values in witness.pack(columns)]
    return dict(zip(stack_names(STACKS, witness), made, strict=True)), RangeAdvice(keys, counts)


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
    alphas = draw_alphas(channel, layout)
    logup, leaves = prove_logup(fractions(layout, alphas, advice.keys, advice.counts), channel)
    weights, witness = leaf_claims(layout, alphas, leaves)
    join(parent, channel)  # type: ignore[arg-type]
    absorb_claims(parent, weights)
    return RangeProof(logup), LayerClaims({}, weights, witness)
