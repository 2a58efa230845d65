"""Public parameters of the PCS and the soundness they give (docs/pcs.md, "Soundness").

Every count the verifier checks (rounds, layers, queries, grinding) follows from these and
from the public sizes of the committed polynomials, never from a proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cairn.prover.fields.m31 import P
from cairn.prover.merkle.hashers import get_hash
from cairn.prover.pcs.domain import MAX_LOG_SIZE

FIELD_BITS = 4 * math.log2(P)  # |QM31| = p^4, every challenge is drawn from it
TARGET_BITS = 96


@dataclass(frozen=True)
class PcsParams:
    """hash: Merkle hash of every tree; rate 2^-log_blowup; 2^log_arity values folded per
    committed layer (a Merkle leaf holds all of them); n_queries; pow_bits of grinding;
    target_bits: commitments larger than these parameters prove at this soundness are
    refused (tests lower it to run fast, weak parameters)."""

    hash: str
    log_blowup: int = 2
    log_arity: int = 4
    n_queries: int = 120
    pow_bits: int = 16
    target_bits: float = TARGET_BITS

    def __post_init__(self) -> None:
        get_hash(self.hash)
        if not (1 <= self.log_blowup and 1 <= self.log_arity and self.n_queries >= 1):
            raise ValueError(f"invalid PCS parameters {self}")
        if not 0 <= self.pow_bits < 64:
            raise ValueError("pow_bits must be in [0, 64)")

    def query_bits(self) -> float:
        """−log2 of the query-phase error 2^-pow · ((1 + ρ) / 2)^s (unique decoding)."""
        rho = 2.0**-self.log_blowup
        return self.pow_bits - self.n_queries * math.log2((1 + rho) / 2)

    def security_bits(self, n_vars: int, n_claims: int = 1) -> float:
        """−log2 of the total soundness error for a largest polynomial of 2^n_vars values.

        ε = 2^-pow·((1+ρ)/2)^s  (queries)
          + 3·2^(n+β) / |F|      (combination and n folds, unique-decoding proximity gaps)
          + (4n + K) / |F|       (merge and folding sum-checks, claim combination).
        """
        eps = 2.0 ** -self.query_bits()
        eps += 3 * 2.0 ** (n_vars + self.log_blowup - FIELD_BITS)
        eps += (4 * n_vars + n_claims) * 2.0**-FIELD_BITS
        return -math.log2(eps)

    @property
    def max_n_vars(self) -> int:
        """Largest polynomial (log size) with target_bits of soundness and a valid domain."""
        n = MAX_LOG_SIZE - self.log_blowup
        while n >= 0 and self.security_bits(n) < self.target_bits:
            n -= 1
        return n


def fold_groups(n_vars: int, log_arity: int) -> list[tuple[int, int]]:
    """The folding levels (s, e] done between two committed layers, first group full.

    Level t has folded t variables; the word at each s > 0 is committed, the one at the last
    e = n_vars is the final value. n_vars = 0 gives one empty group (0, 0).
    """
    ends = [*range(log_arity, n_vars, log_arity), n_vars]
    return list(zip([0, *ends[:-1]], ends, strict=True))


def poly_log_leaf(n_vars: int, params: PcsParams) -> int:
    """A polynomial's codeword is cut into leaves of 2^min(a, n) values: the most one query
    needs from it in any batch (a polynomial folds at most a levels before the next layer)."""
    return min(params.log_arity, n_vars)


POSEIDON_PARAMS = PcsParams("poseidon")
BLAKE2S_PARAMS = PcsParams("blake2s")
PARAMS = {p.hash: p for p in (POSEIDON_PARAMS, BLAKE2S_PARAMS)}  # production, by hash name
WITNESS_PCS = {h: PcsParams(h, pow_bits=20) for h in ("blake2s", "poseidon")}
"""The PCS of every layer's own witness and fixed tables, opened once per proof by the walk on
a Blake2s transcript, by tree hash: rate 1/4, 120 queries, 20 grinding bits (≥ 97 bits up to
2^23 values, whichever the hash). The prover picks the hash (`--witness-hash`): Blake2s trees
commit ≈ 70× faster, Poseidon252 ones cost less to verify on chain (docs/pcs.md, "Which tree
hash"); the verifier reads it off the witness commitments."""
DEFAULT_WITNESS_HASH = "blake2s"
