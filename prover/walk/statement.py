"""The public statement of a layer proof and how it enters the transcript.

Everything the verifier relies on is absorbed before the first challenge: the kind's tag, the
dimensions, the binding, the committed tensors (name, shape, root and size), the public
weights, the commitments to the prover's own witness, and the public inputs and outputs, each
with its shape. Tensors are absorbed in name order, so the transcript does not depend on how a
file happens to order them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31
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
    """Tensors of any group (inputs, outputs, weights) bound by PCS commitments instead of
    their values; a kind's names are distinct across its groups, so the name says the group.
    The prover's statement also holds their values in their groups (its layers need them); the
    proof's statement holds only the commitments (docs/claim-walk.md, "Committed tensors")."""
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

    ranged: frozenset[str] = frozenset()
    """Committed weights the model walk's statement declares (prover/graph/declared.py): their
    group holds that worst case, every entry at the declared magnitude (with the declared column
    sums when summed), so the relations reading them are checked as on a hidden tensor."""

    def skipped(self) -> set[str]:
        """The tensors whose relations are not checked (they hold mod p only): committed ones
        without a declared range, and unbounded ones."""
        return (self.committed.keys() - self.ranged) | self.unbounded

    def public(self, group: str) -> Tensors:
        """A group's tensors whose values are in the statement (not committed)."""
        tensors: Tensors = getattr(self, group)
        return {n: t for n, t in tensors.items() if n not in self.committed}

    def known(self, name: str) -> bool:
        """Whether the checks read a tensor's values or its bound (not committed without a
        declared range, not a hidden tensor without a bound)."""
        return name not in self.skipped()


def absorb_shape(channel: Channel, shape: Sequence[int]) -> None:
    channel.mix_u64(len(shape))
    for d in shape:
        channel.mix_u64(d)


def absorb_tensor(channel: Channel, t: np.ndarray) -> None:
    """Its shape, then its values mod p, packed as calldata packs them."""
    absorb_shape(channel, t.shape)
    channel.mix_m31s(embed(t).ravel())


def absorb_tensors(channel: Channel, tensors: Tensors) -> None:
    for name in sorted(tensors):
        absorb_tensor(channel, tensors[name])


def absorb_commitment(channel: Channel, c: Commitment) -> None:
    mix_root(channel, get_hash(c.hash), c.root)  # type: ignore[arg-type]
    channel.mix_u64(c.n_vars)


def name_felt(name: str) -> int:
    """A name as the short string calldata carries it (latin-1 bytes, big-endian; at most 31
    bytes, else `statement.shape`: only a JSON file can hold such a name)."""
    raw = name.encode("latin-1", errors="replace")
    if len(raw) > 31 or raw.decode("latin-1") != name:
        raise VerificationError("statement.shape", f"name {name!r} is not a short string")
    return int.from_bytes(raw, "big")


def absorb_committed(channel: Channel, committed: Mapping[str, CommittedTensor]) -> None:
    """Each committed tensor as its name (a short string), shape, root and size."""
    for name in sorted(committed):
        channel.mix_root(name_felt(name))
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


def expect_binding(st: Statement, weights: Iterable[str]) -> None:
    """`statement.binding` unless a binding names a model (not 0) and exactly the committed
    weights among `weights` (the layer's weights: its claims say which they are), at least one:
    a binding without a committed weight would record a model the proof says nothing about."""
    b = st.binding
    committed = st.committed.keys() & set(weights)
    if b is not None and (b.model_id == 0 or not committed or b.weights.keys() != committed):
        raise VerificationError("statement.binding", "must name a model and every committed weight")


def expect_public_reads(st: Statement, reads: Iterable[str]) -> None:
    """`statement.reads` if a tensor whose values the kind's checks read is committed."""
    if problem := st.committed.keys() & set(reads):
        raise VerificationError("statement.reads", f"{sorted(problem)} are read: not committable")


def absorb_statement(channel: Channel, st: Statement) -> None:
    absorb_dims(channel, st.kind, st.dims)
    if st.binding is not None:
        absorb_binding(channel, st.binding)
    absorb_committed(channel, st.committed)
    absorb_tensors(channel, st.public("weights"))
    for name in sorted(st.witness):
        absorb_commitment(channel, st.witness[name])
    for group in ("inputs", "outputs"):
        absorb_tensors(channel, st.public(group))


class OutputClaims(dict[str, Claim]):
    """The claims on a layer's outputs; a committed output the proof sent no value for is
    `walk.output_values` when the layer asks for it."""

    def __missing__(self, name: str) -> Claim:
        raise VerificationError("walk.output_values", f"no value for the committed output {name!r}")


def draw_points(channel: Channel, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, tuple]:
    """A point per tensor, in name order, over its MLE's variables."""
    return {n: tuple(channel.draw_secure_felts(tensor_vars(shapes[n]))) for n in sorted(shapes)}


def absorb_output_values(channel: Channel, values: Mapping[str, QM31]) -> None:
    """The committed outputs' values in name order, when there are any."""
    if values:
        channel.mix_felts([values[n] for n in sorted(values)])


def draw_output_claims(
    channel: Channel,
    outputs: Tensors,
    committed: Mapping[str, tuple[int, ...]] | None = None,
    value: Callable[[str, tuple], QM31] | None = None,
) -> dict[str, Claim]:
    """r_out per public output (`outputs`) and per committed one (`committed`: its shape), in
    name order, drawn after the statement; then the committed outputs' values there (`value`:
    the prover's evaluation, the proof's value for a verifier) absorbed in name order, when
    there are any, so every later challenge depends on them. A public output's claim value is
    its own MLE at r_out; the walk's opening proves a committed one's."""
    committed = committed or {}
    assert value is not None or not committed, "committed outputs need their values"
    points = draw_points(channel, {n: t.shape for n, t in outputs.items()} | dict(committed))
    values = {n: value(n, points[n]) for n in sorted(committed)} if value else {}
    absorb_output_values(channel, values)
    return {
        n: Claim(p, values[n] if n in values else evaluate_tensor(outputs[n], p))
        for n, p in points.items()
    }


def walk_output_claims(
    channel: Channel, st: Statement, values: Mapping[str, QM31], outputs: Iterable[str]
) -> OutputClaims:
    """The output claims, a committed output's value the proof's `values[name]`
    (`walk.output_values` if such a name is not committed, is a public output, or is none of
    the kind's `outputs`)."""
    names = set(values)
    public = st.public("outputs")
    if not names <= st.committed.keys() & set(outputs) or names & public.keys():
        raise VerificationError("walk.output_values", "values only for committed outputs")
    shapes = {n: tuple(st.committed[n].shape) for n in names}
    return OutputClaims(draw_output_claims(channel, public, shapes, lambda n, _p: values[n]))


def expect_shapes(st: Statement, group: str, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """Raise statement.shape unless the group holds exactly these names with these shapes,
    public or committed (a commitment's size must fit its shape)."""
    got = {n: t.shape for n, t in st.public(group).items()}
    got |= {n: tuple(c.shape) for n, c in st.committed.items() if n in shapes}
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
        if name in shapes and ct.commitment.n_vars != tensor_vars(ct.shape):
            raise VerificationError("statement.shape", f"commitment {name!r} has the wrong size")


def expect_ranges(st: Statement, relations: Sequence[Relation]) -> None:
    """Raise statement.range unless every relation on public operands cannot wrap mod p
    (prover/ranges.py); call after expect_shapes, which fixes the names."""
    tensors = {**st.inputs, **st.outputs, **st.weights}
    tensors = {n: t for n, t in tensors.items() if n not in st.committed or n in st.ranged}
    check_ranges(relations, tensors, st.dims, st.skipped())
