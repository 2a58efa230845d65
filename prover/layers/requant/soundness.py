"""The soundness error of a requant proof, term by term (docs/layers/requant.md,
"Soundness"). Every challenge is in QM31 (|F| = p^4); the terms add up by the union bound. The
verifier refuses a configuration whose total is above 2^-96 (`requant.params`). The opening
of the witness is the walk's, one for every layer (docs/claim-walk.md)."""

from __future__ import annotations

from cairn.prover.layers.requant.params import RequantParams
from cairn.prover.layers.requant.relations import instance_vars, witness_layout
from cairn.prover.pcs.params import FIELD_BITS
from cairn.prover.soundness import bits, shortfall

N_OPENING_CLAIMS = 7  # r0, r1, y', y at ρ; y at the output point; two multiplicities


def error_terms(n: int, p: RequantParams) -> dict[str, float]:
    """Each source of error as a probability, for 2^n entries."""
    field = 2.0**-FIELD_BITS
    n_vars = instance_vars(n, p)
    lookups = sum((1 << w) + (1 << t) for w, t in ((n_vars[0], n_vars[2]), (n_vars[1], n_vars[3])))
    gkr = sum(3 * j + len(n_vars) + 1 for j in range(max(n_vars)))
    return {
        "LogUp (RANGE, CLAMP)": lookups * field,
        "GKR layers": gkr * field,
        "input identity at ρ, y tie at the output point": 2 * n * field,
    }


def security_bits(n: int, p: RequantParams) -> float:
    return bits(error_terms(n, p))


def security_problem(n: int, p: RequantParams) -> str | None:
    """Why this configuration proves less than the target soundness, or its witness fits no
    stack the witness PCS proves at the target, or None."""
    return shortfall(lambda: error_terms(n, p), lambda: witness_layout(n, p))
