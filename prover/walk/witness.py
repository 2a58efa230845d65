"""The witness opening: one batch opening on a Blake2s fork, at the end of a walk, of every
claim the layers left on their own witness commitments and on fixed tables (docs/claim-walk.md,
step 10), with `WITNESS_PCS` for the hash the prover committed them with.

Every such claim is fixed before the opening's first challenge (the opening comes last), so
one opening settles them all at the soundness of one: its error grows with the largest
polynomial and, by 1/|F| each, with the number of claims, not with the number of layers.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from cairn.prover.channels.fork import fork, join
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, WITNESS_PCS, PcsParams
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.prover import CommitmentData, open_batch
from cairn.prover.pcs.verifier import verify_batch
from cairn.prover.soundness import shortfall
from cairn.prover.walk.layer import SUMCHECK_ERROR, FixedTable, LayerSpec
from cairn.prover.walk.statement import Statement

TAG = "cairn/witness/v1"


def layer_tables(spec: LayerSpec, st: Statement) -> dict[str, FixedTable]:
    return dict(spec.tables(st)) if spec.tables else {}


def expect_claims(
    check: str, where: str, names: Collection[Any], claims: Mapping[Any, list[Claim]]
) -> None:
    """`check` unless the claims fall on exactly the named commitments."""
    if set(claims) != set(names):
        raise VerificationError(check, f"{where} must leave claims on exactly {sorted(names)}")


def batch(
    items: Mapping[Any, Any], claims: Mapping[Any, list[Claim]]
) -> list[tuple[Any, list[Claim]]]:
    """(commitment or its data, claims) per key, in key order."""
    return [(items[key], claims[key]) for key in sorted(items)]


def open_witness(
    openings: Sequence[tuple[CommitmentData, list[Claim]]], channel: Poseidon252Channel
) -> OpeningProof | None:
    """The batch opening on a Blake2s fork of the walk's channel (None when there is none)."""
    if not openings:
        return None
    child = fork(channel, TAG)
    proof = open_batch(openings, child)
    join(channel, child)
    return proof


def expect_one_hash(openings: Sequence[tuple[Commitment, list[Claim]]]) -> None:
    """`pcs.hash` unless every polynomial of the witness opening is on its first's hash (the
    Cairo graph class checks it as it lists them, `witness_polys`, before the opening's
    presence)."""
    if len({c.hash for c, _ in openings}) > 1:
        raise VerificationError("pcs.hash", "the witness opening's polynomials need one hash")


def expect_witness_opening(openings: Sequence[Any], proof: OpeningProof | None) -> None:
    """`walk.witness_opening` unless an opening is present exactly when claims are due."""
    if (proof is None) != (not openings):
        raise VerificationError("walk.witness_opening", "an opening is due exactly for witness")


def verify_witness(
    openings: Sequence[tuple[Commitment, list[Claim]]],
    proof: OpeningProof | None,
    channel: Poseidon252Channel,
) -> None:
    """`walk.witness_opening` unless an opening is present exactly when claims are due; the
    opening's own checks are the PCS's (pcs.*, merkle.*)."""
    expect_one_hash(openings)
    expect_witness_opening(openings, proof)
    if proof is None:
        return
    child = fork(channel, TAG)
    verify_batch(openings, proof, witness_params(openings[0][0]), child)
    join(channel, child)


def witness_params(first: Commitment) -> PcsParams:
    """The witness opening's parameters: `WITNESS_PCS` for its first polynomial's hash (every
    other polynomial must have it, `pcs.hash`)."""
    if first.hash not in WITNESS_PCS:
        raise VerificationError("pcs.hash", f"no witness PCS over {first.hash} trees")
    return WITNESS_PCS[first.hash]


def opening_error(commitments: Iterable[Commitment], n_claims: int) -> dict[str, float]:
    """The one witness opening's term: its largest polynomial and its number of claims."""
    sizes = [c.n_vars for c in commitments]
    if not sizes:
        return {}
    bits = WITNESS_PCS[DEFAULT_WITNESS_HASH].security_bits(max(sizes), n_claims)  # any hash's
    return {"witness opening": 2.0**-bits}


def layer_terms(spec: LayerSpec, st: Statement) -> dict[str, float]:
    """A layer's own terms (a sum-check layer: SUMCHECK_ERROR), its opening not included."""
    return dict(spec.error_terms(st)) if spec.error_terms else {"sum-checks": SUMCHECK_ERROR}


def walk_error_terms(spec: LayerSpec, st: Statement) -> dict[str, float]:
    """A layer walk's terms: the layer's and its witness opening's."""
    pinned = [t.pinned for t in layer_tables(spec, st).values()]
    return layer_terms(spec, st) | opening_error(
        [*st.witness.values(), *pinned], spec.opening_claims
    )


def check_soundness(spec: LayerSpec, st: Statement) -> None:
    """`walk.params` unless the layer walk proves the target soundness."""
    if problem := shortfall(lambda: walk_error_terms(spec, st)):
        raise VerificationError("walk.params", problem)
