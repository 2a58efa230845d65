"""The soundness error of an attn proof, term by term (docs/layers/attn.md, "Soundness").

Every challenge is a QM31 element (|F| = p^4); the terms add up by the union bound. The
verifier refuses a configuration whose total is above 2^-96 (`softmax.params`). The opening
of the witness and the exp table is the walk's, one for every layer (docs/claim-walk.md).
"""

from __future__ import annotations

from cairn.prover.layers.mha.model import Dims
from cairn.prover.pcs.params import FIELD_BITS
from cairn.prover.softmax.params import SoftmaxParams
from cairn.prover.softmax.relations import instance_vars, witness_layout
from cairn.prover.soundness import bits, shortfall

N_OPENING_CLAIMS = 12
"""Claims left to the witness opening: 5 columns at ρ, Y twice more, Z, 3 multiplicities, T."""


def error_terms(dims: Dims, params: SoftmaxParams) -> dict[str, float]:
    """Each source of error as a probability."""
    field = 2.0**-FIELD_BITS
    n_vars = instance_vars(dims, params)
    entries, norm = 1 << n_vars[0], 1 << n_vars[2]
    tables = [1 << v for v in n_vars[3:]]
    lookups = (entries + tables[0]) + (entries + tables[1]) + (norm + tables[2])
    layers = max(n_vars)
    gkr = sum(3 * j + len(n_vars) + 1 for j in range(layers))
    n = n_vars[0]
    s, h, m, d = dims.s_vars, dims.h_vars, dims.m_vars, dims.d_vars
    return {
        "LogUp (EXP, LIMB, NORM)": lookups * field,
        "GKR layers": gkr * field,
        "recomposition (identity + sum-check)": 4 * n * field,
        "MHA steps around softmax": (12 * s + 12 * h + 5 * m + 3 * d + 1) * field,
    }


def security_bits(dims: Dims, params: SoftmaxParams) -> float:
    return bits(error_terms(dims, params))


def security_problem(dims: Dims, params: SoftmaxParams) -> str | None:
    """Why this configuration proves less than the target soundness, or its witness fits no
    stack the witness PCS proves at the target, or None."""
    return shortfall(lambda: error_terms(dims, params), lambda: witness_layout(dims, params))
