"""What a layer provides to the walk: check, prove and verify, with symmetric signatures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.ranges import Relation
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class LayerClaims:
    """What a layer leaves behind: claims on its public inputs and on its weights, by name."""

    inputs: dict[str, list[Claim]]
    weights: dict[str, list[Claim]]


@dataclass(frozen=True)
class LayerSpec:
    """`check` validates a statement's shapes (statement.shape) and the no-wrap bounds of
    its `relations` (statement.range); `prove` and `verify` turn the output claims into
    LayerClaims, the prover also returning its layer proof."""

    kind: str
    proof_type: type
    check: Callable[[Statement], None]
    relations: tuple[Relation, ...]
    prove: Callable[[Statement, dict[str, Claim], Channel], tuple[Any, LayerClaims]]
    verify: Callable[[Statement, Any, dict[str, Claim], Channel], LayerClaims]
