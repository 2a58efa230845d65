"""What the verifier sees: commitments and the batch opening proof (fields in transcript
order; docs/pcs.md, "Proof layout")."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31
from cairn.prover.merkle.proof import MerkleOpening
from cairn.prover.sumcheck.proof import SumcheckProof


@dataclass(frozen=True)
class Commitment:
    """The public part of a commitment to an MLE of 2^n_vars M31 values."""

    root: int
    n_vars: int
    hash: str


@dataclass(frozen=True)
class CommittedTensor:
    """A commitment to a tensor's MLE (zero-padded per dimension, row-major) and its shape."""

    shape: list[int]
    commitment: Commitment


@dataclass(frozen=True)
class OpeningProof:
    """One batch opening. With n = the largest n_vars, J polynomials, a = log_arity:

    merge: n rounds [c0, c2], or none when the claims are already aligned;
    merged_values: J values, or none when aligned;
    fold: n rounds [c0, c2];
    layer_roots: ⌈n / a⌉ − 1 roots (none for n = 0);
    final_value; pow_nonce;
    poly_openings: J Merkle openings; layer_openings: one per layer root.
    """

    merge: SumcheckProof
    merged_values: list[QM31]
    fold: SumcheckProof
    layer_roots: list[int]
    final_value: QM31
    pow_nonce: int
    poly_openings: list[MerkleOpening]
    layer_openings: list[MerkleOpening]
