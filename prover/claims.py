"""An evaluation claim f~(point) = value: what every layer of the backward walk hands on."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.fields.qm31 import QM31


@dataclass(frozen=True)
class Claim:
    """The MLE of a tensor (variables MSB-first, docs/claim-walk.md) equals `value` at `point`."""

    point: tuple[QM31, ...]
    value: QM31
