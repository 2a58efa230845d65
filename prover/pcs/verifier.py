"""PCS verifier: the mirror of open_batch, step for step (docs/pcs.md, "Verifier")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.merkle.hashers import MerkleHash, get_hash
from cairn.prover.merkle.proof import MerkleOpening
from cairn.prover.merkle.verifier import verify_opening
from cairn.prover.pcs.code import fold, inverse_double, scale_base
from cairn.prover.pcs.domain import twiddles_at
from cairn.prover.pcs.front import FrontReplay, QueryPhase
from cairn.prover.pcs.params import PcsParams, poly_log_leaf
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.queries import BatchLayout, LeafMap
from cairn.prover.pcs.transcript import AnyChannel, Statement


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


def verify_front(
    statement: Statement, proof: OpeningProof, params: PcsParams, channel: AnyChannel
) -> QueryPhase:
    """`verify_batch` up to the queries: the front's stages at once (`pcs.front`)."""
    replay = FrontReplay.start(params, [c for c, _ in statement], proof, channel)
    claims = [on for _, on in statement]
    replay.absorb(claims)
    replay.reduce(claims)
    return replay.finish()


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
