"""The attn proof: MHA's steps around softmax, with softmax proven in the middle
(docs/layers/attn.md)."""

from __future__ import annotations

from dataclasses import dataclass

from cairn.prover.layers.mha.proof import HeadProductStep, OneFactorStep, PadStep
from cairn.prover.softmax.proof import SoftmaxProof


@dataclass(frozen=True)
class AttnProof:
    unpad: OneFactorStep
    attend: HeadProductStep
    softmax: SoftmaxProof
    heads: HeadProductStep
    pad: PadStep
