"""PCS prover: commit to an MLE, then open many commitments at many points in one proof.

The opening merges all claims into one claim per polynomial at a common point (a sum-check,
skipped when the claims are already aligned), combines the polynomials with random β_j, and
runs the folding sum-check: each round's challenge folds the message (for the sum-check) and
the codeword (for the proximity test) alike; see docs/pcs.md.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import cairn_native
import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import P, embed
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.merkle.hashers import get_hash, mix_root
from cairn.prover.merkle.tree import MerkleTree
from cairn.prover.mle import eq_combination, eq_eval, eq_table, log2_exact, pad_tensor
from cairn.prover.mle import fold as fold_message
from cairn.prover.mle import fold_combination as fold_message_combination
from cairn.prover.pcs.code import encode, fold_inverses
from cairn.prover.pcs.code import fold as fold_codeword
from cairn.prover.pcs.code import fold_combination as fold_codeword_combination
from cairn.prover.pcs.params import PcsParams, poly_log_leaf
from cairn.prover.pcs.proof import Commitment, CommittedTensor, OpeningProof
from cairn.prover.pcs.queries import BatchLayout
from cairn.prover.pcs.transcript import (
    AnyChannel,
    Statement,
    absorb_statement,
    aligned_point,
    draw_queries,
    merge_weights,
)
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.prover.sumcheck.prover import Pair, prove_pair_sumcheck


@dataclass(frozen=True)
class CommitmentData:
    """The prover's side of a commitment: the message, its codeword and Merkle tree."""

    commitment: Commitment
    params: PcsParams
    values: np.ndarray
    codeword: np.ndarray
    tree: MerkleTree


def commit(values: np.ndarray, params: PcsParams) -> tuple[Commitment, CommitmentData]:
    """Commit to the MLE of 2^n canonical M31 values (n >= 0, row-major, MSB-first)."""
    values = np.asarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise ValueError("commit takes a 1-D integer array of canonical M31 values")
    n = log2_exact(len(values))
    if n > params.max_n_vars:
        raise ValueError(f"2^{n} values exceed the largest size these parameters prove soundly")
    values = values.astype(np.int64)
    if values.min() < 0 or values.max() >= P:
        raise ValueError("values must be canonical M31 (0 <= v < p); embed signed ints first")
    codeword = encode(values, params.log_blowup)
    rows = codeword.reshape(-1, 1 << poly_log_leaf(n, params))
    tree = MerkleTree.commit(rows, get_hash(params.hash))
    commitment = Commitment(tree.root, n, params.hash)
    return commitment, CommitmentData(commitment, params, values, codeword, tree)


def commit_tensor(tensor: np.ndarray, params: PcsParams) -> tuple[CommittedTensor, CommitmentData]:
    """Commit to a signed-integer tensor's MLE as every layer reads it (mle.pad_tensor)."""
    commitment, data = commit(embed(pad_tensor(tensor)).ravel(), params)
    return CommittedTensor(list(tensor.shape), commitment), data


def open_batch(
    openings: Sequence[tuple[CommitmentData, Sequence[Claim]]], channel: AnyChannel
) -> OpeningProof:
    """Prove every claim on every committed polynomial (all made with the same parameters)."""
    if not openings:
        raise ValueError("open_batch needs at least one commitment")
    params = openings[0][0].params
    if any(data.params != params for data, _ in openings):
        raise ValueError("all commitments of one batch must share their parameters")
    statement = [(data.commitment, list(claims)) for data, claims in openings]
    for commitment, claims in statement:
        if not claims or any(len(c.point) != commitment.n_vars for c in claims):
            raise ValueError("each polynomial needs claims at points of its own size")
    datas = [data for data, _ in openings]
    absorb_statement(channel, params, statement)
    layout = BatchLayout.of([c.n_vars for c, _ in statement], params.log_arity)

    point, merge, merged_values = _merge(statement, datas, channel)
    betas = channel.draw_secure_felts(len(datas))
    fold, trees, final = _fold(datas, layout, point, betas, params, channel)
    channel.mix_felts([final])
    nonce = channel.grind(params.pow_bits)
    channel.mix_u64(nonce)

    queries = draw_queries(channel, params.n_queries, layout.n_vars + params.log_blowup)
    poly_openings = [
        data.tree.open(layout.poly_leaf_map(j, params, queries).leaves)
        for j, data in enumerate(datas)
    ]
    layer_openings = [
        tree.open(layout.layer_leaf_map(g, queries).leaves) for g, tree in enumerate(trees, 1)
    ]
    return OpeningProof(
        merge,
        merged_values,
        fold,
        [t.root for t in trees],
        final,
        nonce,
        poly_openings,
        layer_openings,
    )


def _merge(
    statement: Statement, datas: list[CommitmentData], channel: AnyChannel
) -> tuple[tuple[QM31, ...], SumcheckProof, list[QM31]]:
    """One claim per polynomial j at the last n_j coordinates of a common point r.

    Returns r, the merge sum-check and the values f_j~(r_tail) it ends with (both empty when
    the claims are aligned: then r is their common point). The sum-check is over
    Σ_j Σ_k λ_jk eq(z_jk, x_tail) f_j(x_tail), x in {0,1}^n (a smaller table is read on the
    last variables); polynomial j's term sums to Σ_k λ_jk v_jk when its claims hold, and its
    eq table is built only when its rounds start.
    """
    aligned = aligned_point(statement)
    if aligned is not None:
        return aligned, SumcheckProof([]), []
    weights = merge_weights(channel.draw_secure_felt(), statement)
    pairs = [
        Pair(
            functools.partial(eq_combination, [c.point for c in claims], row),
            data.values,
            sum((w * c.value for c, w in zip(claims, row, strict=True)), QM31.zero()),
        )
        for (_, claims), row, data in zip(statement, weights, datas, strict=True)
    ]
    proof, point, merged = prove_pair_sumcheck(pairs, channel)
    channel.mix_felts(merged)
    return tuple(point), proof, merged


def _fold(
    datas: list[CommitmentData],
    layout: BatchLayout,
    point: tuple[QM31, ...],
    betas: list[QM31],
    params: PcsParams,
    channel: AnyChannel,
) -> tuple[SumcheckProof, list[MerkleTree], QM31]:
    """The folding sum-check of E_t·Σ_x eq(r_(t+1..n), x)·M_t(x), M = Σ_j β_j f_j.

    Round t sends g_t(X) = E·eq(r_t, X)·(h0 + (h1 − h0)X) as [c0, c2], draws ρ_t, folds the
    message and the codeword with ρ_t, adds the polynomials entering at level t, and commits
    the codeword at each group start.
    """
    n, hash_ = layout.n_vars, get_hash(params.hash)

    def enter(polys: list[int], message: QM31Array, word: QM31Array) -> None:
        """Add β_j·f_j and β_j·C_j for the polynomials `polys`, in place (the message and the
        word are this function's own arrays)."""
        for j in polys:
            cairn_native.qm31_add_scaled_base(message.data, betas[j].coords, datas[j].values)
            cairn_native.qm31_add_scaled_base(word.data, betas[j].coords, datas[j].codeword)

    # Level 0 stays the terms β_j·(f_j, C_j): the first round reads and folds them without
    # building M_0 and W_0 (QM31 vectors of 4× the base data).
    first = [(betas[j], datas[j]) for j in layout.entering(0)]
    if n == 0:
        return SumcheckProof([]), [], sum((b * int(d.values[0]) for b, d in first), QM31.zero())
    inv_twiddles = fold_inverses(n + params.log_blowup, params.log_blowup)
    layer_log_leaf = {s: e - s for s, e in layout.groups if s > 0}
    one = QM31.one()
    scale = one
    rounds: list[list[QM31]] = []
    trees: list[MerkleTree] = []
    message: QM31Array | None = None  # None at level 0: M_0, W_0 are the terms `first`
    word: QM31Array | None = None
    for t in range(1, n + 1):
        r = point[t - 1]
        eqs = eq_table(point[t:])
        half = 1 << (n - t)
        if message is None:
            h0 = sum((b * eqs.dot_base(d.values[:half]) for b, d in first), QM31.zero())
            h1 = sum((b * eqs.dot_base(d.values[half:]) for b, d in first), QM31.zero())
        else:
            h0, h1 = eqs.dot(message[:half]), eqs.dot(message[half:])
        sent = [scale * (one - r) * h0, scale * (r + r - one) * (h1 - h0)]
        channel.mix_felts(sent)
        rho = channel.draw_secure_felt()
        rounds.append(sent)
        scale = scale * eq_eval([r], [rho])
        if message is None or word is None:
            message = fold_message_combination([(b, d.values) for b, d in first], rho)
            word = fold_codeword_combination(
                [(b, d.codeword) for b, d in first], inv_twiddles[0], rho
            )
        else:
            message = fold_message(message, rho)
            word = fold_codeword(word, inv_twiddles[t - 1], rho)
        enter(layout.entering(t), message, word)
        if t in layer_log_leaf:
            tree = MerkleTree.commit(word.data.reshape(-1, 4 << layer_log_leaf[t]), hash_)
            mix_root(channel, hash_, tree.root)
            trees.append(tree)
    assert message is not None  # n ≥ 1 rounds ran
    return SumcheckProof(rounds), trees, message.item(0)
