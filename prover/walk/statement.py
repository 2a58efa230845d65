"""The public statement of a layer proof and how it enters the transcript.

Everything the verifier relies on is absorbed before the first challenge: the kind's tag, the
dimensions, the weights (public for now; commitments once the PCS is wired in), and the
public inputs and outputs, each with its shape. Tensors are absorbed in name order, so the
transcript does not depend on how a file happens to order them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.mle import evaluate_tensor, tensor_vars

Tensors = Mapping[str, np.ndarray]


def domain_tag(kind: str) -> int:
    return int.from_bytes(f"cairn/{kind}/v1".encode(), "big")


@dataclass(frozen=True)
class Statement:
    """A layer's public data: signed-integer tensors (|x| <= (p-1)/2) and its dimensions."""

    kind: str
    dims: tuple[int, ...]
    inputs: Tensors
    outputs: Tensors
    weights: Tensors


def _absorb_tensors(channel: Channel, tensors: Tensors) -> None:
    for name in sorted(tensors):
        t = tensors[name]
        channel.mix_u64(t.ndim)
        for d in t.shape:
            channel.mix_u64(d)
        channel.mix_m31s(embed(t).ravel())


def absorb_statement(channel: Channel, st: Statement) -> None:
    channel.mix_root(domain_tag(st.kind))
    channel.mix_u64(len(st.dims))
    for d in st.dims:
        channel.mix_u64(d)
    for group in (st.weights, st.inputs, st.outputs):
        _absorb_tensors(channel, group)


def draw_output_claims(channel: Channel, outputs: Tensors) -> dict[str, Claim]:
    """r_out per output, drawn after the statement; the value is the output's own MLE there."""
    claims = {}
    for name in sorted(outputs):
        t = outputs[name]
        point = tuple(channel.draw_secure_felts(tensor_vars(t.shape)))
        claims[name] = Claim(point, evaluate_tensor(t, point))
    return claims


def expect_shapes(st: Statement, group: str, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """Raise statement.shape unless the group holds exactly these names with these shapes."""
    tensors: Tensors = getattr(st, group)
    if set(tensors) != set(shapes):
        raise VerificationError(
            "statement.shape", f"{group}: expected {sorted(shapes)}, got {sorted(tensors)}"
        )
    for name, shape in shapes.items():
        if tensors[name].shape != shape:
            raise VerificationError(
                "statement.shape", f"{group}.{name}: shape {tensors[name].shape} != {shape}"
            )
