"""PCS verifier: the mirror of open_batch, step for step (docs/pcs.md, "Verifier")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.merkle.hashers import MerkleHash, get_hash, mix_root
from cairn.prover.merkle.proof import MerkleOpening
from cairn.prover.merkle.verifier import verify_opening
from cairn.prover.mle import eq_eval
from cairn.prover.pcs.code import fold, inverse_double, scale_base
from cairn.prover.pcs.domain import twiddles_at
from cairn.prover.pcs.params import PcsParams, poly_log_leaf
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.queries import BatchLayout, LeafMap
from cairn.prover.pcs.transcript import (
    AnyChannel,
    Statement,
    absorb_statement,
    aligned_point,
    draw_queries,
    merge_weights,
    merged_claim,
    merged_eq,
)
from cairn.prover.sumcheck.proof import SumcheckProof, evaluate_round
from cairn.prover.sumcheck.verifier import verify_sumcheck

ROUND_SENT = 2  # [c0, c2]: every round polynomial here has degree 2


def verify_batch(
    openings: Sequence[tuple[Commitment, Sequence[Claim]]],
    proof: OpeningProof,
    params: PcsParams,
    channel: AnyChannel,
) -> None:
    """Returns on acceptance; raises VerificationError naming the failed check."""
    statement = [(commitment, list(claims)) for commitment, claims in openings]
    phase = verify_front(statement, proof, params, channel)
    for _ in verify_groups(statement, proof, params, phase):
        pass


@dataclass(frozen=True)
class QueryPhase:
    """Where the transcript leaves the verifier (Cairo's `QueryPhase`): the challenges β_j
    and ρ_t, the channel's digest after the nonce (the queries are its first draws) and the
    query positions drawn from it."""

    betas: list[QM31]
    rhos: list[QM31]
    query_seed: int | bytes
    queries: np.ndarray


def verify_front(
    statement: Statement, proof: OpeningProof, params: PcsParams, channel: AnyChannel
) -> QueryPhase:
    """`verify_batch` up to the queries: statement and counts, merge, β, the folding
    sum-check, final value, grinding."""
    _check_statement(statement, params)
    layout = BatchLayout.of([c.n_vars for c, _ in statement], params.log_arity)
    aligned = aligned_point(statement)
    _check_shape(proof, layout, aligned is not None, len(statement), get_hash(params.hash))

    absorb_statement(channel, params, statement)
    point, values = _verify_merge(statement, proof, layout.n_vars, aligned, channel)
    betas = channel.draw_secure_felts(len(statement))
    rhos, claim, scale = _replay_fold(proof, layout, point, values, betas, params, channel)
    channel.mix_felts([proof.final_value])
    if claim != scale * proof.final_value:
        raise VerificationError(
            "pcs.claim", "the folding sum-check does not end at the final value"
        )
    if not channel.verify_pow_nonce(params.pow_bits, proof.pow_nonce):
        raise VerificationError("pcs.pow", f"nonce does not give {params.pow_bits} zero bits")
    channel.mix_u64(proof.pow_nonce)
    seed = channel.digest
    queries = draw_queries(channel, params.n_queries, layout.n_vars + params.log_blowup)
    return QueryPhase(betas, rhos, seed, queries)


def _check_statement(statement: Statement, params: PcsParams) -> None:
    if not statement:
        raise VerificationError("pcs.statement", "no commitment to open")
    for commitment, claims in statement:
        if commitment.hash != params.hash:
            raise VerificationError("pcs.hash", f"{commitment.hash} commitment, {params.hash} PCS")
        if not get_hash(params.hash).is_digest(commitment.root):
            raise VerificationError("merkle.digest", f"a root is not a {params.hash} digest")
        if not 0 <= commitment.n_vars <= params.max_n_vars:
            raise VerificationError("pcs.size", f"2^{commitment.n_vars} values")
        if not claims or any(len(c.point) != commitment.n_vars for c in claims):
            raise VerificationError("pcs.claim_shape", "claims must be points of the MLE's size")


def _check_shape(
    proof: OpeningProof, layout: BatchLayout, aligned: bool, n_polys: int, hash_: MerkleHash
) -> None:
    """Every count against the public parameters and sizes, before any transcript step, in
    the order the calldata reader meets them (merge rounds, merged values, fold rounds, …)."""
    n = layout.n_vars
    merge_rounds, merge_values = (0, 0) if aligned else (n, n_polys)
    _check_rounds("merge", proof.merge, merge_rounds)
    if len(proof.merged_values) != merge_values:
        raise VerificationError("pcs.merge_count", f"{len(proof.merged_values)} merged values")
    _check_rounds("fold", proof.fold, n)
    n_layers = len(layout.groups) - 1
    if len(proof.layer_roots) != n_layers or len(proof.layer_openings) != n_layers:
        raise VerificationError(
            "pcs.layer_count",
            f"{len(proof.layer_roots)} roots and {len(proof.layer_openings)} openings for "
            f"{n_layers} layers",
        )
    if len(proof.poly_openings) != n_polys:
        raise VerificationError("pcs.opening_count", f"{len(proof.poly_openings)} != {n_polys}")
    if not all(isinstance(r, int) and hash_.is_digest(r) for r in proof.layer_roots):
        raise VerificationError("merkle.digest", f"a layer root is not a {hash_.name} digest")
    if not (isinstance(proof.pow_nonce, int) and 0 <= proof.pow_nonce < 1 << 64):
        raise VerificationError("pcs.pow", "the nonce is not a u64")


def _check_rounds(name: str, rounds: SumcheckProof, want: int) -> None:
    if len(rounds.rounds) != want:
        raise VerificationError("pcs.round_count", f"{name}: {len(rounds.rounds)} != {want}")
    if any(len(sent) != ROUND_SENT for sent in rounds.rounds):
        raise VerificationError("pcs.round_degree", f"{name}: a round is not [c0, c2]")


def _verify_merge(
    statement: Statement,
    proof: OpeningProof,
    n: int,
    aligned: tuple[QM31, ...] | None,
    channel: AnyChannel,
) -> tuple[tuple[QM31, ...], list[QM31]]:
    """The common point r and the values f_j~(r_tail) the folding sum-check starts from."""
    if aligned is not None:
        return aligned, [claims[0].value for _, claims in statement]
    weights = merge_weights(channel.draw_secure_felt(), statement)
    claim = merged_claim(statement, weights, n)
    point, final = verify_sumcheck(claim, proof.merge, n, ROUND_SENT, channel)
    channel.mix_felts(proof.merged_values)
    expected = QM31.zero()
    for (commitment, claims), row, value in zip(
        statement, weights, proof.merged_values, strict=True
    ):
        expected = expected + merged_eq(claims, row, point[n - commitment.n_vars :]) * value
    if final != expected:
        raise VerificationError("pcs.merge", "the merge sum-check does not end at the values sent")
    return tuple(point), proof.merged_values


def _replay_fold(
    proof: OpeningProof,
    layout: BatchLayout,
    point: tuple[QM31, ...],
    values: list[QM31],
    betas: list[QM31],
    params: PcsParams,
    channel: AnyChannel,
) -> tuple[list[QM31], QM31, QM31]:
    """Replay the folding rounds; returns the challenges ρ, the claim on E·c, and E."""
    hash_ = get_hash(params.hash)
    roots = iter(proof.layer_roots)
    starts = {s for s, _ in layout.groups if s > 0}
    claim = QM31.zero()
    for j in layout.entering(0):
        claim = claim + betas[j] * values[j]
    scale = QM31.one()
    rhos: list[QM31] = []
    for t, sent in enumerate(proof.fold.rounds, 1):
        channel.mix_felts(sent)
        rho = channel.draw_secure_felt()
        rhos.append(rho)
        claim = evaluate_round(claim, sent, rho)
        scale = scale * eq_eval([point[t - 1]], [rho])
        for j in layout.entering(t):
            claim = claim + scale * betas[j] * values[j]
        if t in starts:
            mix_root(channel, hash_, next(roots))
    return rhos, claim, scale


def _open(
    hash_: MerkleHash,
    root: int,
    log_size: int,
    log_leaf: int,
    words: int,
    leaf_map: LeafMap,
    opening: MerkleOpening,
) -> np.ndarray:
    """Check one tree's opening: rows of `words` M31 values per position, per query."""
    if len(opening.leaves) != len(leaf_map.leaves):
        raise VerificationError(
            "pcs.query_count",
            f"{len(opening.leaves)} leaves opened, the queries need {len(leaf_map.leaves)}",
        )
    rows = verify_opening(
        hash_, root, log_size - log_leaf, words << log_leaf, leaf_map.leaves, opening
    )
    return rows[leaf_map.rows]


def verify_groups(
    statement: Statement, proof: OpeningProof, params: PcsParams, phase: QueryPhase
) -> Iterator[np.ndarray]:
    """Group by group: fold every query through the group from all the trees it opens
    (`fold_trees`) and yield its values (one QM31 as 4 coordinates per query), or compare them
    with the final value at e = n.

    Each group needs only its own openings and the previous group's values, so a verifier can
    stop between groups and resume (the Cairo session, docs/cairo-verifier.md)."""
    layout = BatchLayout.of([c.n_vars for c, _ in statement], params.log_arity)
    expected: np.ndarray | None = None  # every query's value at level s, from the last group
    for g in range(len(layout.groups)):
        trees = range(layout.group_trees(g))
        expected = fold_trees(statement, proof, params, phase, g, trees, expected)
        if layout.groups[g][1] == layout.n_vars and np.any(
            expected != np.array(proof.final_value.coords)
        ):
            raise VerificationError("pcs.final_layer", "a query does not fold to the final value")
        yield expected


def fold_trees(
    statement: Statement,
    proof: OpeningProof,
    params: PcsParams,
    phase: QueryPhase,
    g: int,
    trees: range,
    expected: np.ndarray | None,
) -> np.ndarray:
    """What `trees` of group g = (s, e] add to every query's value at level e: open them (tree
    0 of a later group is the layer committed at s, the others the polynomials entering in the
    group), check the layer holds `expected`, the previous group's values, at every query, and
    fold from s to e, adding β_j times each polynomial's block at its level t_j.

    Folding is linear, so a group's value is the sum of what its trees add: a session may cut a
    group between trees and carry the partial sums (docs/cairo-verifier.md, "Sessions")."""
    layout = BatchLayout.of([c.n_vars for c, _ in statement], params.log_arity)
    s, e = layout.groups[g]
    n, beta, queries = layout.n_vars, params.log_blowup, phase.queries
    first = int(g > 0)  # trees before the group's polynomials
    polys = [layout.group_polys(g)[k - first] for k in trees if k >= first]
    with_layer = first and 0 in trees
    word = QM31Array(np.zeros((len(queries), 1 << (e - s), 4), dtype=np.int64))
    if with_layer:
        layer_map = layout.layer_leaf_map(g, queries)
        rows = _open(
            get_hash(params.hash),
            proof.layer_roots[g - 1],
            n - s + beta,
            e - s,
            4,
            layer_map,
            proof.layer_openings[g - 1],
        )
        word = QM31Array(rows.reshape(len(queries), 1 << (e - s), 4))
    blocks = {j: _open_poly(statement, proof, layout, params, j, queries) for j in polys}
    if with_layer:
        at_query = np.take_along_axis(word.data, layer_map.offsets[:, None, None], axis=1)
        if np.any(at_query[:, 0, :] != expected):
            raise VerificationError("pcs.fold", f"a query does not fold to layer {s}'s value")
    for t in range(s, e + 1):
        if t > s:
            positions = ((queries >> e) << (e - t))[:, None] + np.arange(1 << (e - t))
            inv_2x = inverse_double(twiddles_at(n + beta - t + 1, positions))
            word = fold(word, inv_2x, phase.rhos[t - 1])
        for j in layout.entering(t):
            if j in blocks:
                word = word + _block(blocks[j], phase.betas[j], 1 << (e - t))
    return word.data[:, 0, :]


def _block(opened: tuple[np.ndarray, np.ndarray], beta: QM31, size: int) -> QM31Array:
    """β times the `size` values of an opened polynomial that fold into each query's position."""
    rows, offsets = opened
    start = offsets & ~(size - 1)
    cols = np.take_along_axis(rows, start[:, None] + np.arange(size), axis=1)
    return scale_base(beta, cols)


def _open_poly(
    statement: Statement,
    proof: OpeningProof,
    layout: BatchLayout,
    params: PcsParams,
    j: int,
    queries: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Polynomial j's opened values per query (one leaf each) and each query's offset in it."""
    commitment = statement[j][0]
    leaf_map = layout.poly_leaf_map(j, params, queries)
    rows = _open(
        get_hash(params.hash),
        commitment.root,
        commitment.n_vars + params.log_blowup,
        poly_log_leaf(commitment.n_vars, params),
        1,
        leaf_map,
        proof.poly_openings[j],
    )
    return rows, leaf_map.offsets
