"""Where the claims a layer leaves go: those on public tensors to their same-poly
settlement, those on committed tensors (of any group) to the one batch opening."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.walk.layer import LayerClaims
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class OpeningClaims:
    """What the walk's openings settle: the claims on each committed tensor, by name, with the
    group the layer's claims put it in, and the claims on the layer's witness and tables."""

    committed: dict[str, list[Claim]]
    groups: dict[str, str]
    witness: dict[str, list[Claim]]


def public_claims(st: Statement, claims: Mapping[str, list[Claim]]) -> dict[str, list[Claim]]:
    """The claims on tensors that are not committed (the walk settles them against values)."""
    return {n: c for n, c in claims.items() if n not in st.committed}


def opening_claims(
    st: Statement, layer: LayerClaims, outputs: Mapping[str, Claim]
) -> OpeningClaims:
    """Each committed tensor's claims, from exactly one of the layer's input claims, its weight
    claims and the output claims (`walk.committed_claims` for a committed tensor none of
    them or more than one claims)."""
    sources = {
        "inputs": layer.inputs,
        "weights": layer.weights,
        "outputs": {n: [c] for n, c in outputs.items() if n in st.committed},
    }
    claims, groups = {}, {}
    for name in sorted(st.committed):
        found = [group for group, on in sources.items() if name in on]
        if len(found) != 1:
            raise VerificationError(
                "walk.committed_claims", f"{name!r} must be claimed by exactly one group"
            )
        groups[name] = found[0]
        claims[name] = sources[found[0]][name]
    return OpeningClaims(claims, groups, layer.witness)
