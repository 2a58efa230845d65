"""Range verifier: the mirror of prove_range, every check named as in docs/layers/range.md."""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.channels.fork import fork, join
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.layers.range.proof import RangeProof
from cairn.prover.layers.range.prover import absorb_claims
from cairn.prover.layers.range.relations import TAG, RangeLayout, draw_challenges, leaf_claims
from cairn.prover.lookups.verifier import check_balance, verify_logup
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def verify_range(
    st: Statement, proof: RangeProof, outputs: dict[str, Claim], parent: Channel
) -> LayerClaims:
    layout = RangeLayout.of(st.dims)
    channel = fork(parent, TAG)  # type: ignore[arg-type]
    challenges = draw_challenges(channel, layout)
    leaves = verify_logup(layout.instance_vars(), proof.logup, channel)
    check_balance(proof.logup, layout.balanced())
    if (sent := len(proof.magnitudes)) != len(layout.summed):
        raise VerificationError(
            "range.value_count", f"{sent} != {len(layout.summed)} summed weights"
        )
    channel.mix_felts(proof.magnitudes)
    weights, witness = leaf_claims(layout, challenges, leaves, proof.magnitudes, outputs)
    join(parent, channel)  # type: ignore[arg-type]
    absorb_claims(parent, weights)
    return LayerClaims({}, weights, witness)
