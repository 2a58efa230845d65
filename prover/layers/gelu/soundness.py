"""The soundness error of a gelu proof, term by term (docs/layers/gelu.md, "Soundness"). Every
challenge is in QM31 (|F| = p^4); the terms add up by the union bound. The verifier refuses a
configuration whose total is above 2^-96 (`gelu.params`). The opening of the witness is
the walk's, one for every layer (docs/claim-walk.md)."""

from __future__ import annotations

from cairn.prover.layers.gelu.params import GeluParams
from cairn.prover.layers.gelu.relations import instance_vars, witness_layout
from cairn.prover.pcs.params import FIELD_BITS
from cairn.prover.soundness import bits, shortfall

N_OPENING_CLAIMS = 4  # y at ρ and at the output point, m and T at the table's point


def error_terms(n: int, p: GeluParams) -> dict[str, float]:
    """Each source of error as a probability, for 2^n entries."""
    field = 2.0**-FIELD_BITS
    n_vars = instance_vars(n, p)
    gkr = sum(3 * j + len(n_vars) + 1 for j in range(max(n_vars)))
    return {
        "LogUp (GELU)": sum(1 << k for k in n_vars) * field,
        "GKR layers": gkr * field,
        "y tie at the output point": n * field,
    }


def security_bits(n: int, p: GeluParams) -> float:
    return bits(error_terms(n, p))


def security_problem(n: int, p: GeluParams) -> str | None:
    """Why this configuration proves less than the target soundness, or its witness fits no
    stack the witness PCS proves at the target, or None."""
    return shortfall(lambda: error_terms(n, p), lambda: witness_layout(n, p))
