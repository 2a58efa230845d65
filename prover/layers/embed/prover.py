"""Embed prover: O(V·d) to combine the tables' columns, then a sum-check on vectors of the
tables' row counts.

T_t(·, r_c) is a column combination of each padded table (exact, on BLAS); the selectors
hold eq(r_i, i) at the rows the tokens read.
"""

from __future__ import annotations

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
from cairn.prover.layers.embed.gather import Gather
from cairn.prover.layers.embed.proof import EmbedProof
from cairn.prover.mle import col_combination, eq_table, pad_tensor
from cairn.prover.sumcheck.prover import prove_sumcheck
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


def split_point(gather: Gather, out: Claim) -> tuple[tuple[QM31, ...], tuple[QM31, ...]]:
    """The output claim's point as (r_i, r_c): token rows, then columns."""
    return out.point[: gather.row_vars], out.point[gather.row_vars :]


def prove_embed(
    st: Statement, outputs: dict[str, Claim], channel: Channel, advice: None = None
) -> tuple[EmbedProof, LayerClaims]:
    gather = Gather.of(st.dims)
    r_i, r_c = split_point(gather, outputs["y"])
    token_eq = eq_table(r_i)
    eq_cols = eq_table(r_c)
    mles = []
    for t in gather.tables:
        table = embed(pad_tensor(st.weights[t.name]))
        mles += [gather.selector_table(t, token_eq), col_combination(table, eq_cols)]
    sumcheck, point, finals = prove_sumcheck(mles, gather.products(), channel)
    values = finals[1::2]
    channel.mix_felts(values)
    proof = EmbedProof(sumcheck, values[:-1], values[-1])
    return proof, LayerClaims({}, gather.claims(point, r_c, values))
