"""The PCS verifier's front in stages (docs/pcs.md, "The front in stages"): what
`verify_front` replays before the queries, cut so that no stage needs more than a run of the
statement's polynomials' claims. A contract session verifies a model walk's witness opening
this way over several transactions, each holding only its polynomials' claims; `verify_front`
runs the same stages at once. Cairo's `pcs::front` is the same state and the same steps.

1. `FrontReplay.start`: the tag, the parameters and the number of polynomials.
2. `absorb`, polynomial by polynomial in statement order: its claims' shape checked
   (`_check_poly`), its root, size and claims absorbed. After the last, the counts are
   checked (`check_shape`) and the merge begins: α, the merge sum-check's rounds
   replayed for the point r (their arithmetic waits for the merged claim), the merged values.
3. `reduce`, polynomial by polynomial again: Σ_k λ_jk v_jk 2^(n − n_j) into the merged claim,
   Σ_k λ_jk eq(z_jk, r_tail) · v_j into what the merge must end at.
4. `finish`: the rounds' arithmetic from the merged claim (`pcs.merge`), β, the folding
   sum-check, the final value, the grinding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.merkle.hashers import MerkleHash, get_hash, mix_root
from cairn.prover.mle import eq_eval
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.queries import BatchLayout
from cairn.prover.pcs.transcript import (
    AnyChannel,
    absorb_head,
    absorb_poly,
    draw_queries,
    merged_eq,
)
from cairn.prover.sumcheck.proof import SumcheckProof, evaluate_round

ROUND_SENT = 2  # [c0, c2]: every round polynomial here has degree 2


@dataclass(frozen=True)
class QueryPhase:
    """Where the transcript leaves the verifier (Cairo's `QueryPhase`): the challenges β_j
    and ρ_t, the channel's digest after the nonce (the queries are its first draws) and the
    query positions drawn from it."""

    betas: list[QM31]
    rhos: list[QM31]
    query_seed: int | bytes
    queries: np.ndarray


@dataclass
class FrontReplay:
    """A front replayed up to polynomial `absorbed` (stage 2), then `reduced` (stage 3).

    While absorbing it tracks whether the claims are aligned (one per polynomial, every point a
    suffix of the first longest one: no merge is needed) and, if so, their values. Once every
    polynomial is absorbed `point` is the common point r; without alignment `alpha` is the merge
    coefficient, `power` the next claim's λ, `claim` and `expected` the merged claim and what
    the merge ends at, both so far."""

    params: PcsParams
    commitments: list[Commitment]
    proof: OpeningProof
    channel: AnyChannel
    absorbed: int = 0
    reduced: int = 0
    aligned: bool = True
    longest: tuple[QM31, ...] = ()
    values: list[QM31] = field(default_factory=list)
    point: tuple[QM31, ...] = ()
    alpha: QM31 = field(default_factory=QM31.zero)
    power: QM31 = field(default_factory=QM31.one)
    claim: QM31 = field(default_factory=QM31.zero)
    expected: QM31 = field(default_factory=QM31.zero)

    @classmethod
    def start(
        cls,
        params: PcsParams,
        commitments: Sequence[Commitment],
        proof: OpeningProof,
        channel: AnyChannel,
    ) -> FrontReplay:
        """Stage 1: `pcs.statement` if there is no polynomial, then the tag and parameters."""
        if not commitments:
            raise VerificationError("pcs.statement", "no commitment to open")
        absorb_head(channel, params, len(commitments))
        return cls(params, list(commitments), proof, channel)

    @property
    def layout(self) -> BatchLayout:
        return BatchLayout.of([c.n_vars for c in self.commitments], self.params.log_arity)

    def absorb(self, claims: Sequence[Sequence[Claim]]) -> None:
        """Stage 2 for the next polynomials, given their claims; after the last, the counts
        and the start of the merge."""
        for on in claims:
            commitment = self.commitments[self.absorbed]
            _check_poly(commitment, on, self.params)
            absorb_poly(self.channel, commitment, on)
            self._align(on)
            self.absorbed += 1
            if self.absorbed == len(self.commitments):
                self._merge()

    def _align(self, on: Sequence[Claim]) -> None:
        """Whether every point so far is a suffix of the first longest one, each alone."""
        point = tuple(on[0].point)
        shorter, longer = (
            (self.longest, point) if len(point) > len(self.longest) else (point, self.longest)
        )
        self.longest = longer
        suffix = longer[len(longer) - len(shorter) :] == shorter
        self.aligned = self.aligned and len(on) == 1 and suffix
        self.values.append(on[0].value)

    def _merge(self) -> None:
        layout, proof = self.layout, self.proof
        check_shape(proof, layout, self.aligned, len(self.commitments), get_hash(self.params.hash))
        if self.aligned:
            self.point = self.longest
            return
        self.alpha = self.channel.draw_secure_felt()
        point = []
        for sent in proof.merge.rounds:
            self.channel.mix_felts(sent)
            point.append(self.channel.draw_secure_felt())
        self.point = tuple(point)
        self.channel.mix_felts(proof.merged_values)

    def reduce(self, claims: Sequence[Sequence[Claim]]) -> None:
        """Stage 3 for the next polynomials (nothing to do when the claims are aligned)."""
        if claims and self.absorbed < len(self.commitments):
            raise ValueError("reduce before every polynomial is absorbed")
        n = len(self.point)
        for on in claims:
            j = self.reduced
            if not self.aligned:
                n_j = self.commitments[j].n_vars
                row = []
                for c in on:
                    row.append(self.power)
                    self.claim = self.claim + c.value * self.power * (1 << (n - n_j))
                    self.power = self.power * self.alpha
                eq = merged_eq(on, row, self.point[n - n_j :])
                self.expected = self.expected + eq * self.proof.merged_values[j]
            self.reduced += 1

    def finish(self) -> QueryPhase:
        """Stage 4: the merge's end (`pcs.merge`), β, the folding sum-check (`pcs.claim`),
        the grinding (`pcs.pow`); the queries."""
        if self.reduced != len(self.commitments):
            raise ValueError("finish before every polynomial is reduced")
        point, values = self._merged()
        proof, params, channel = self.proof, self.params, self.channel
        betas = channel.draw_secure_felts(len(self.commitments))
        rhos, claim, scale = _replay_fold(proof, self.layout, point, values, betas, params, channel)
        channel.mix_felts([proof.final_value])
        if claim != scale * proof.final_value:
            raise VerificationError(
                "pcs.claim", "the folding sum-check does not end at the final value"
            )
        if not channel.verify_pow_nonce(params.pow_bits, proof.pow_nonce):
            raise VerificationError("pcs.pow", f"nonce does not give {params.pow_bits} zero bits")
        channel.mix_u64(proof.pow_nonce)
        seed = channel.digest
        queries = draw_queries(channel, params.n_queries, self.layout.n_vars + params.log_blowup)
        return QueryPhase(betas, rhos, seed, queries)

    def _merged(self) -> tuple[tuple[QM31, ...], list[QM31]]:
        """The merge's end: the point r and the values the folding sum-check starts from."""
        if self.aligned:
            return self.point, self.values
        claim = self.claim
        for sent, r in zip(self.proof.merge.rounds, self.point, strict=True):
            claim = evaluate_round(claim, sent, r)
        if claim != self.expected:
            raise VerificationError(
                "pcs.merge", "the merge sum-check does not end at the values sent"
            )
        return self.point, self.proof.merged_values


def _check_poly(commitment: Commitment, claims: Sequence[Claim], params: PcsParams) -> None:
    """The statement's checks of one polynomial, in order (the kind-2 reader makes them too,
    as the felts come)."""
    if commitment.hash != params.hash:
        raise VerificationError("pcs.hash", f"{commitment.hash} commitment, {params.hash} PCS")
    if not get_hash(params.hash).is_digest(commitment.root):
        raise VerificationError("merkle.digest", f"a root is not a {params.hash} digest")
    if not 0 <= commitment.n_vars <= params.max_n_vars:
        raise VerificationError("pcs.size", f"2^{commitment.n_vars} values")
    if not claims or any(len(c.point) != commitment.n_vars for c in claims):
        raise VerificationError("pcs.claim_shape", "claims must be points of the MLE's size")


def check_shape(
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
