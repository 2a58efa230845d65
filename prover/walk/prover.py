"""Walk prover: statement -> output claims -> layer -> merged input and weight claims."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.mle import evaluate_tensor, pad_tensor
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, WITNESS_PCS, PcsParams
from cairn.prover.pcs.prover import CommitmentData, commit_tensor, open_batch
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sameply.prover import prove_sameply
from cairn.prover.walk.claims import opening_claims
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import (
    Statement,
    Tensors,
    absorb_statement,
    draw_output_claims,
    expect_binding,
    expect_public_reads,
)
from cairn.prover.walk.witness import batch, check_soundness, layer_tables, open_witness


def merge_claims(
    tensors: Tensors, claims: Mapping[str, list[Claim]], channel: Channel
) -> dict[str, SamePolyProof | None]:
    """Per tensor in name order, the same-poly merge of its claims (the merged claim is the
    tensor's own MLE at a fresh point, which the verifier evaluates)."""
    return {name: merge_tensor(tensors[name], claims[name], channel)[0] for name in sorted(tensors)}


def merge_tensor(
    tensor: np.ndarray, claims: Sequence[Claim], channel: Channel
) -> tuple[SamePolyProof | None, Claim]:
    """The same-poly merge of claims on one integer tensor's MLE, and the merged claim (one
    claim passes through: the tensor is not even read)."""
    if len(claims) == 1:
        return None, claims[0]
    return prove_sameply(QM31Array.from_base(embed(pad_tensor(tensor)).ravel()), claims, channel)


def commit_tensors(
    st: Statement, names: Iterable[str], params: PcsParams
) -> tuple[Statement, dict[str, CommitmentData]]:
    """Commit to the named tensors (of any group; weights are done once per model); the
    statement then binds them by root instead of their values."""
    tensors = {**st.inputs, **st.outputs, **st.weights}
    made = {name: commit_tensor(tensors[name], params) for name in names}
    committed = {name: ct for name, (ct, _) in made.items()}
    return replace(st, committed=committed), {name: data for name, (_, data) in made.items()}


def committable_io(spec: LayerSpec) -> list[str]:
    """The inputs and outputs a statement may bind by commitments: those whose values the
    kind's checks do not read or bound."""
    return sorted({*spec.inputs, *spec.outputs} - set(spec.reads) - set(spec.bounded))


def commit_weights(st: Statement, params: PcsParams) -> tuple[Statement, dict[str, CommitmentData]]:
    """Commit to every weight."""
    return commit_tensors(st, st.weights, params)


def prove_walk(
    spec: LayerSpec,
    st: Statement,
    committed_data: Mapping[str, CommitmentData] | None = None,
    witness_hash: str = DEFAULT_WITNESS_HASH,
) -> WalkProof:
    """`committed_data` (from commit_tensors) must cover exactly `st.committed`; the proof's
    statement then carries those tensors as commitments only. The layer's witness is committed
    with `WITNESS_PCS[witness_hash]`."""
    committed_data = committed_data or {}
    if set(committed_data) != set(st.committed):
        raise ValueError("committed_data must cover exactly the committed tensors")
    advice, witness_data = None, {}
    if spec.advise is not None:
        witness_data, advice = spec.advise(st, WITNESS_PCS[witness_hash])
        st = replace(st, witness={n: d.commitment for n, d in witness_data.items()})
    expect_public_reads(st, spec.reads)
    spec.check(st)
    expect_binding(st, st.weights)
    check_soundness(spec, st)
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    shapes = {n: tuple(c.shape) for n, c in st.committed.items() if n in st.outputs}
    outputs = draw_output_claims(
        channel, st.public("outputs"), shapes, lambda n, p: evaluate_tensor(st.outputs[n], p)
    )
    layer_proof, claims = spec.prove(st, outputs, channel, advice)
    inputs = merge_claims(st.public("inputs"), claims.inputs, channel)
    weights = merge_claims(st.public("weights"), claims.weights, channel)
    opening = None
    if committed_data:
        committed = opening_claims(st, claims, outputs).committed
        names = sorted(committed_data)
        opening = open_batch([(committed_data[n], committed[n]) for n in names], channel)
    tables = {n: t.data() for n, t in layer_tables(spec, st).items()}
    witness = open_witness(
        batch(witness_data, claims.witness) + batch(tables, claims.witness), channel
    )
    public = {g: st.public(g) for g in ("inputs", "outputs", "weights")}
    values = {n: outputs[n].value for n in sorted(shapes)}
    return WalkProof(replace(st, **public), values, layer_proof, inputs, weights, opening, witness)
