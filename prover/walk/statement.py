"""The public statement of a layer proof and how it enters the transcript.

Everything the verifier relies on is absorbed before the first challenge: the kind's tag, the
dimensions, the weights (public values, or shape, root and size when committed), the
commitments to the prover's own witness, and the public inputs and outputs, each with its
shape. Tensors are absorbed in name order, so the
transcript does not depend on how a file happens to order them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.merkle.hashers import get_hash, mix_root
from cairn.prover.mle import evaluate_tensor, tensor_vars
from cairn.prover.pcs.proof import Commitment, CommittedTensor
from cairn.prover.ranges import Relation, Tensors, check_ranges


def domain_tag(kind: str) -> int:
    return int.from_bytes(f"cairn/{kind}/v1".encode(), "big")


NO_MODEL = 0
"""The model id a proof bound to no model is recorded with; never registrable (docs/registry.md)."""


@dataclass(frozen=True)
class ModelBinding:
    """Which registered model's weights the committed weights are (docs/registry.md): each
    committed weight's index in model `model_id`'s commitment list, and the model's config
    hash. Absorbed before any challenge, so the proof holds for those weights of that model
    only; the contract checks every commitment against the registry."""

    model_id: int
    config_hash: int
    weights: dict[str, int]


@dataclass(frozen=True)
class Statement:
    """A layer's public data: signed-integer tensors (|x| <= (p-1)/2) and its dimensions."""

    kind: str
    dims: tuple[int, ...]
    inputs: Tensors
    outputs: Tensors
    weights: Tensors
    committed: Mapping[str, CommittedTensor] = field(default_factory=dict)
    """Weights bound by PCS commitments. The prover's statement also holds their values in
    `weights` (its layers need them); the proof's statement holds only the commitments."""
    witness: Mapping[str, Commitment] = field(default_factory=dict)
    """Commitments the prover made to its own advice (limbs, flags, shifts, multiplicities),
    bound before any challenge; the layer that asked for them settles their claims."""
    binding: ModelBinding | None = None
    """The registered model the committed weights are of, if any (on chain: the record's
    model id)."""
    unbounded: frozenset[str] = frozenset()
    """Tensors no bound is known for (in a model walk: hidden tensors computed from a
    committed weight). Relations reading one are skipped like those reading a committed
    weight: they hold mod p only (prover/ranges.py)."""

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        return {n: t.shape for n, t in self.weights.items()} | {
            n: tuple(c.shape) for n, c in self.committed.items()
        }


def absorb_shape(channel: Channel, shape: Sequence[int]) -> None:
    channel.mix_u64(len(shape))
    for d in shape:
        channel.mix_u64(d)


def absorb_tensors(channel: Channel, tensors: Tensors) -> None:
    for name in sorted(tensors):
        absorb_shape(channel, tensors[name].shape)
        channel.mix_m31s(embed(tensors[name]).ravel())


def absorb_commitment(channel: Channel, c: Commitment) -> None:
    mix_root(channel, get_hash(c.hash), c.root)  # type: ignore[arg-type]
    channel.mix_u64(c.n_vars)


def absorb_weights(
    channel: Channel, weights: Tensors, committed: Mapping[str, CommittedTensor]
) -> None:
    """A committed weight enters as its shape, root and size; a public one as its values."""
    for name in sorted(weights.keys() | committed.keys()):
        if name not in committed:
            absorb_tensors(channel, {name: weights[name]})
            continue
        absorb_shape(channel, committed[name].shape)
        absorb_commitment(channel, committed[name].commitment)


def absorb_dims(channel: Channel, kind: str, dims: Sequence[int]) -> None:
    channel.mix_root(domain_tag(kind))
    channel.mix_u64(len(dims))
    for d in dims:
        channel.mix_u64(d)


BINDING_TAG = int.from_bytes(b"cairn/binding/v1", "big")


def absorb_binding(channel: Channel, binding: ModelBinding) -> None:
    """The tag, the model id, the config hash and each committed weight's index, by name."""
    for felt in (BINDING_TAG, binding.model_id, binding.config_hash):
        channel.mix_root(felt)
    for name in sorted(binding.weights):
        channel.mix_u64(binding.weights[name])


def expect_binding(st: Statement) -> None:
    """`statement.binding` unless a binding names a model (not 0) and exactly the committed
    weights."""
    b = st.binding
    if b is not None and (b.model_id == 0 or b.weights.keys() != st.committed.keys()):
        raise VerificationError("statement.binding", "must name a model and every committed weight")


def absorb_statement(channel: Channel, st: Statement) -> None:
    absorb_dims(channel, st.kind, st.dims)
    if st.binding is not None:
        absorb_binding(channel, st.binding)
    absorb_weights(channel, st.weights, st.committed)
    for name in sorted(st.witness):
        absorb_commitment(channel, st.witness[name])
    for group in (st.inputs, st.outputs):
        absorb_tensors(channel, group)


def draw_output_claims(channel: Channel, outputs: Tensors) -> dict[str, Claim]:
    """r_out per output, drawn after the statement; the value is the output's own MLE there."""
    claims = {}
    for name in sorted(outputs):
        t = outputs[name]
        point = tuple(channel.draw_secure_felts(tensor_vars(t.shape)))
        claims[name] = Claim(point, evaluate_tensor(t, point))
    return claims


def expect_shapes(st: Statement, group: str, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """Raise statement.shape unless the group holds exactly these names with these shapes
    (for weights, public or committed; a commitment's size must fit its shape)."""
    got = (
        st.weight_shapes()
        if group == "weights"
        else {n: t.shape for n, t in getattr(st, group).items()}
    )
    if set(got) != set(shapes):
        raise VerificationError(
            "statement.shape", f"{group}: expected {sorted(shapes)}, got {sorted(got)}"
        )
    for name, shape in shapes.items():
        if got[name] != shape:
            raise VerificationError(
                "statement.shape", f"{group}.{name}: shape {got[name]} != {shape}"
            )
    for name, ct in st.committed.items():
        if ct.commitment.n_vars != tensor_vars(ct.shape):
            raise VerificationError("statement.shape", f"commitment {name!r} has the wrong size")


def expect_ranges(st: Statement, relations: Sequence[Relation]) -> None:
    """Raise statement.range unless every relation on public operands cannot wrap mod p
    (prover/ranges.py); call after expect_shapes, which fixes the names."""
    tensors = {**st.inputs, **st.outputs, **st.weights}
    check_ranges(relations, tensors, st.dims, st.committed.keys() | st.unbounded)
