"""What a layer provides to the walk: check, prove and verify, with symmetric signatures."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.prover import CommitmentData
from cairn.prover.ranges import Relation
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class LayerClaims:
    """What a layer leaves behind: claims on its public inputs and on its weights, and on its
    witness commitments and fixed tables, by name. The walk settles them all; the witness and
    tables in one batch opening at the end (docs/claim-walk.md, step 10)."""

    inputs: dict[str, list[Claim]]
    weights: dict[str, list[Claim]]
    witness: dict[str, list[Claim]] = field(default_factory=dict)


@dataclass(frozen=True)
class FixedTable:
    """A public polynomial a layer's claims fall on (softmax's exp table): the verifier's
    pinned commitment, never read from a proof, and the prover's data for it, built on demand."""

    pinned: Commitment
    data: Callable[[], CommitmentData]


Advise = Callable[[Statement, PcsParams], tuple[dict[str, CommitmentData], Any]]
"""From the prover's statement and the witness opening's parameters (`WITNESS_PCS` of the
prover's tree hash): the witness commitments to bind in it (the walk keeps their data to open
them) and the prover-only data its `prove` needs."""


@dataclass(frozen=True)
class LayerSpec:
    """`check` validates a statement's shapes (statement.shape) and the no-wrap bounds of
    its `relations` (statement.range); `prove` and `verify` turn the output claims into
    LayerClaims, the prover also returning its layer proof. A layer with `advise` commits to
    witness before any challenge; `prove` gets what advise returned (None for the others)."""

    kind: str
    proof_type: type
    check: Callable[[Statement], None]
    relations: tuple[Relation, ...]
    prove: Callable[[Statement, dict[str, Claim], Channel, Any], tuple[Any, LayerClaims]]
    verify: Callable[[Statement, Any, dict[str, Claim], Channel], LayerClaims]
    advise: Advise | None = None
    dim_names: tuple[str, ...] = ()
    """What each of the statement's dims means, for people (`cairn inspect`)."""
    inputs: tuple[str, ...] = ()
    """The kind's input names."""
    outputs: tuple[str, ...] = ()
    """The kind's output names: a proof may send a committed output's value for these only."""
    has_weights: bool = False
    """Whether the kind's statements carry weights, which a prover may bind by commitments
    instead of publishing them (`cairn prove <kind> --commit-weights`)."""
    reads: tuple[str, ...] = ()
    """Tensors whose values the verifier reads (layernorm's row statistics): never committed,
    and in a model walk public, inputs or outputs of the graph (docs/model-walk.md)."""
    bounded: tuple[str, ...] = ()
    """Inputs the check bounds by their values (attn's int8 q and k): public in the kind's own
    statement, so never committed there (`committable_io`); in a model walk the layer producing
    them may bound them instead (a requantization's range), so they may be hidden."""
    committable_reads: tuple[str, ...] = ()
    """Tensors the check reads while they are public and the proof covers once committed
    (posenc's o − x, whose relation then holds mod p only; qkv-decode's caches, whose empty
    rows a sum-check then shows are zero): public in a model walk, as `reads`."""
    error_terms: Callable[[Statement], Mapping[str, float]] | None = None
    """The soundness error of a statement's proof, term by term, for layers with lookups; None
    for a layer of sum-checks only, whose error (rounds × degree / |F|) is far below
    SUMCHECK_ERROR at any size a statement can name. The witness opening is the walk's term."""
    tables: Callable[[Statement], Mapping[str, FixedTable]] | None = None
    """The fixed tables the layer leaves claims on, by a name that fixes their content."""
    opening_claims: int = 0
    """How many claims the layer leaves on its witness and tables (the opening's soundness)."""


SUMCHECK_ERROR = 2.0**-110
"""A bound on the soundness error of a layer made of sum-checks and same-poly merges: at most
2^12 rounds of degree ≤ 4 over |F| = p^4 ≈ 2^124 (docs/model-walk.md, "Soundness")."""
