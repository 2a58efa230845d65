"""The transcript steps prover and verifier share: the statement, the merge coefficients,
the query positions. Both sides call these in the order of docs/pcs.md, "Transcript"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.qm31 import QM31
from cairn.prover.merkle.hashers import get_hash, mix_root
from cairn.prover.mle import eq_combination_at
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.proof import Commitment

AnyChannel = Poseidon252Channel | Blake2sChannel
Statement = Sequence[tuple[Commitment, Sequence[Claim]]]

PCS_TAG = int.from_bytes(b"cairnPCS", "big")  # a u64


def absorb_statement(channel: AnyChannel, params: PcsParams, statement: Statement) -> None:
    """Tag, parameters, then per polynomial its root, size and claims (points and values).

    The caller mixed the roots already, before deriving the claims' points; they are mixed
    again here so the opening is bound to its statement whatever the caller did.
    """
    absorb_head(channel, params, len(statement))
    for commitment, claims in statement:
        absorb_poly(channel, commitment, claims)


def absorb_head(channel: AnyChannel, params: PcsParams, n_polys: int) -> None:
    """The statement's start: the tag, the parameters and the number of polynomials."""
    channel.mix_u64(PCS_TAG)
    channel.mix_u32s(
        [params.log_blowup, params.log_arity, params.n_queries, params.pow_bits, n_polys]
    )


def absorb_poly(channel: AnyChannel, commitment: Commitment, claims: Sequence[Claim]) -> None:
    """One polynomial of the statement: its root, size and claims."""
    mix_root(channel, get_hash(commitment.hash), commitment.root)
    channel.mix_u32s([commitment.n_vars, len(claims)])
    for claim in claims:
        channel.mix_felts([*claim.point, claim.value])


def aligned_point(statement: Statement) -> tuple[QM31, ...] | None:
    """The common point when no merge is needed: one claim per polynomial, every point the
    suffix of the largest polynomial's point (smaller polynomials fold in last)."""
    if any(len(claims) != 1 for _, claims in statement):
        return None
    longest = max((claims[0].point for _, claims in statement), key=len)
    if all(claims[0].point == longest[len(longest) - c.n_vars :] for c, claims in statement):
        return longest
    return None


def merge_weights(alpha: QM31, statement: Statement) -> list[list[QM31]]:
    """α^0, α^1, … over all claims in statement order, grouped per polynomial."""
    out: list[list[QM31]] = []
    power = QM31.one()
    for _, claims in statement:
        row = []
        for _ in claims:
            row.append(power)
            power = power * alpha
        out.append(row)
    return out


def merged_eq(claims: Sequence[Claim], weights: list[QM31], tail: Sequence[QM31]) -> QM31:
    """Σ_k λ_k eq(z_k, tail): the merged eq weight of one polynomial at the merge point."""
    return eq_combination_at([c.point for c in claims], weights, tail)


def draw_queries(channel: AnyChannel, n_queries: int, log_size: int) -> np.ndarray:
    """n_queries positions in [0, 2^log_size), one u32 word each (log_size <= 31)."""
    words: list[int] = []
    while len(words) < n_queries:
        words.extend(channel.draw_u32s())
    return np.array(words[:n_queries], dtype=np.int64) & ((1 << log_size) - 1)
