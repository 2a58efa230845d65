"""Soundness accounting shared by every protocol with a table of error terms: the union bound
over the terms, and the refusal of a configuration below the target (docs/pcs.md,
"Soundness"; each layer's page lists its terms)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from cairn.prover.pcs.params import TARGET_BITS


def bits(terms: Mapping[str, float]) -> float:
    """−log2 of the summed error probabilities."""
    return -math.log2(sum(terms.values()))


def shortfall(
    terms: Callable[[], Mapping[str, float]], *builds: Callable[[], object]
) -> str | None:
    """Why the configuration `terms` describes proves less than TARGET_BITS, or None. A
    ValueError while computing the terms or running `builds` (a witness layout: a column no
    stack can hold) is the reason too."""
    try:
        for build in builds:
            build()
        total = bits(terms())
    except ValueError as e:
        return str(e)
    if total < TARGET_BITS:
        return f"{total:.1f} bits of soundness < {TARGET_BITS}"
    return None
