"""The proof: Â(r) at the output claim's point r (docs/layers/add.md); B̂(r) is implied."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31


@dataclass(frozen=True)
class AddProof:
    a_value: QM31
