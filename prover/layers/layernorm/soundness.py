"""The soundness error of a layernorm proof, term by term (docs/layers/layernorm.md,
"Soundness"). Every challenge is in QM31 (|F| = p^4); the terms add up by the union bound. The
verifier refuses a configuration whose total is above 2^-96 (`layernorm.params`). The opening
of the witness is the walk's, one for every layer (docs/claim-walk.md)."""

from __future__ import annotations

from cairn.prover.layers.layernorm.params import LayerNormParams
from cairn.prover.layers.layernorm.relations import BALANCED, instance_vars, witness_layout
from cairn.prover.layers.mha.heads import DEGREE
from cairn.prover.pcs.params import FIELD_BITS
from cairn.prover.soundness import bits, shortfall

N_OPENING_CLAIMS = 19
"""Per gadget r0, r1, y', y at ρ, y at its consumer's point, two multiplicities (7 each);
lo and hi at ρ and π; the LIMB multiplicity."""


def error_terms(s_vars: int, d_vars: int, p: LayerNormParams) -> dict[str, float]:
    """Each source of error as a probability, for an ŝ × d̂ grid (2^s_vars rows)."""
    field = 2.0**-FIELD_BITS
    n = s_vars + d_vars
    n_vars = instance_vars(n, p)
    lookups = sum((1 << n_vars[w[0]]) + (1 << n_vars[t[0]]) for w, t in BALANCED)
    gkr = sum(3 * j + len(n_vars) + 1 for j in range(max(n_vars)))
    return {
        "LogUp (normalise, scale, limbs)": lookups * field,
        "GKR layers": gkr * field,
        "sum-checks (scale, normalise, statistics and μ)": (DEGREE * (d_vars + s_vars + n) + 1)
        * field,
        "identities at random points (outputs, x̃ at ρ, h ties)": (6 * n + 2 * s_vars + 2) * field,
    }


def security_bits(s_vars: int, d_vars: int, p: LayerNormParams) -> float:
    return bits(error_terms(s_vars, d_vars, p))


def security_problem(s_vars: int, d_vars: int, p: LayerNormParams) -> str | None:
    """Why this configuration proves less than the target soundness, or its witness fits no
    stack the witness PCS proves at the target, or None."""
    return shortfall(
        lambda: error_terms(s_vars, d_vars, p), lambda: witness_layout(s_vars + d_vars, p)
    )
