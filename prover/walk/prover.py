"""Walk prover: statement -> output claims -> layer -> merged input and weight claims."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from cairn.prover.channels.base import Channel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.mle import pad_tensor
from cairn.prover.pcs.params import PcsParams
from cairn.prover.pcs.prover import CommitmentData, commit_tensor, open_batch
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sameply.prover import prove_sameply
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import (
    Statement,
    Tensors,
    absorb_statement,
    draw_output_claims,
    expect_binding,
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


def commit_weights(st: Statement, params: PcsParams) -> tuple[Statement, dict[str, CommitmentData]]:
    """Commit to every weight (done once per model); the statement then binds them by root."""
    made = {name: commit_tensor(t, params) for name, t in st.weights.items()}
    committed = {name: ct for name, (ct, _) in made.items()}
    return replace(st, committed=committed), {name: data for name, (_, data) in made.items()}


def prove_walk(
    spec: LayerSpec, st: Statement, weight_data: Mapping[str, CommitmentData] | None = None
) -> WalkProof:
    """`weight_data` (from commit_weights) must cover exactly `st.committed`; the proof's
    statement then carries those weights as commitments only."""
    weight_data = weight_data or {}
    if set(weight_data) != set(st.committed):
        raise ValueError("weight_data must cover exactly the committed weights")
    advice, witness_data = None, {}
    if spec.advise is not None:
        witness_data, advice = spec.advise(st)
        st = replace(st, witness={n: d.commitment for n, d in witness_data.items()})
    expect_binding(st)
    spec.check(st)
    check_soundness(spec, st)
    channel = Poseidon252Channel()
    absorb_statement(channel, st)
    outputs = draw_output_claims(channel, st.outputs)
    layer_proof, claims = spec.prove(st, outputs, channel, advice)
    inputs = merge_claims(st.inputs, claims.inputs, channel)
    public = {n: t for n, t in st.weights.items() if n not in st.committed}
    weights = merge_claims(public, claims.weights, channel)
    opening = None
    if weight_data:
        names = sorted(weight_data)
        opening = open_batch([(weight_data[n], claims.weights[n]) for n in names], channel)
    tables = {n: t.data() for n, t in layer_tables(spec, st).items()}
    witness = open_witness(
        batch(witness_data, claims.witness) + batch(tables, claims.witness), channel
    )
    return WalkProof(replace(st, weights=public), layer_proof, inputs, weights, opening, witness)
