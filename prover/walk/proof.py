"""A layer proof in the walk: the statement, the layer's own proof, and the settlements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cairn.prover.fields.qm31 import QM31
from cairn.prover.pcs.proof import OpeningProof
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.walk.statement import Statement


@dataclass(frozen=True)
class WalkProof:
    """`outputs`: per committed output, its MLE's value at the r_out the verifier draws.
    `inputs` / `weights`: per public tensor, the same-poly merge of its claims (None when
    the layer left a single claim); the verifier then evaluates the tensor at the merged point.
    `opening`: one PCS batch opening of every claim on the committed tensors, if any;
    `witness_opening`: one Blake2s batch opening of every claim on the layer's witness and
    fixed tables, if any (docs/claim-walk.md, step 10)."""

    statement: Statement
    outputs: dict[str, QM31]
    layer: Any
    inputs: dict[str, SamePolyProof | None]
    weights: dict[str, SamePolyProof | None]
    opening: OpeningProof | None = None
    witness_opening: OpeningProof | None = None
