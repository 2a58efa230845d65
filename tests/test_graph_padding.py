"""Zero padding of hidden tensors in a model walk.

A committed weight binds its padded table, padding included, and nothing shows that padding is
zero. In a layer walk a projection's public output catches junk in W's or B's padded columns
(the public output is zero-padded); in a model walk the output may be hidden, and its padded
columns then carry the junk to the next node. LayerNorm's statistics once summed h over all d̂
columns, so the junk moved μ and r of every real row and the verifier accepted an output that
is not the LayerNorm of the real entries; they are summed over the d real columns now
(docs/model-walk.md, "Padding").
"""

import dataclasses

import numpy as np
import pytest

from cairn import examples
from cairn.prover.errors import VerificationError
from cairn.prover.graph.prover import prove_graph
from cairn.prover.graph.statement import GraphStatement, Node
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.requant.model import trace as requant_trace
from cairn.prover.mle import pad_tensor
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.prover import commit_tensor

S, E, H = 2, 2, 3  # H = 3: one padded column
X = np.array([[3, -1], [2, 5]], dtype=np.int64)
W = np.array([[40, -7, 13], [-9, 22, 5]], dtype=np.int64)
B = np.array([100, -50, 25], dtype=np.int64)
GAMMA = np.array([900, -700, 1100], dtype=np.int64)
BETA = np.array([10, -20, 30], dtype=np.int64)


def _normalise(h, gamma, beta, p, mean, factors):
    """LayerNorm's trace for an h that has a padded column: c = h − μ on the d real columns
    only, as the verifier's claim h̃ = c̃ + μ̃·[j < d] reads it (the prover's own code)."""
    padded = pad_tensor(h)
    real = (np.arange(padded.shape[1]) < p.d)[None, :]
    centred = padded - pad_tensor(mean)[:, None] * real
    norm = requant_trace(centred * pad_tensor(factors)[:, None], p.norm)
    scale = requant_trace(norm.y * pad_tensor(gamma)[None, :], p.scale)
    lo, hi = layernorm.limbs(padded, p.limb_bits)
    y = scale.y[: h.shape[0], : p.d] + beta
    return layernorm.LayerNormTrace(lo, hi, centred, mean, factors, norm, scale, y)


def _linear_then_layernorm(junk: int, monkeypatch):
    """x (public) → linear (b committed as [b₀, b₁, b₂, junk]) → hidden → layernorm → public;
    returns the proof and the honest LayerNorm output of the real entries."""
    table = np.array([*B, junk], dtype=np.int64)
    hidden = X @ np.hstack([W, np.zeros((E, 1), np.int64)]) + table  # padded column 3 = junk
    p = dataclasses.replace(examples.layernorm_params(hidden, GAMMA), d=H)
    monkeypatch.setattr(layernorm, "normalise", _normalise)
    trace = layernorm.forward(hidden, GAMMA, BETA, p)
    s1, s2 = layernorm.statistics(hidden, p.limb_bits)
    tensor, data = commit_tensor(table, PARAMS["poseidon"])  # b's padded table, junk at 3
    nodes = (
        Node("linear", (S, E, H), {"x": "x"}, {"y": "hid"}, {"w": "w", "b": "b"}),
        Node(
            "layernorm",
            (S, *dataclasses.astuple(p)),
            {"h": "hid"},
            {"s1": "s1", "s2": "s2", "y": "out"},
            {"gamma": "gamma", "beta": "beta"},
        ),
    )
    g = GraphStatement(
        nodes,
        {"hid": (S, H)},
        {"x": X},
        {"out": trace.y, "s1": s1, "s2": s2},
        {"w": W, "b": table, "gamma": GAMMA, "beta": BETA},
        {"b": dataclasses.replace(tensor, shape=[H])},
    )
    proof = prove_graph(g, {"hid": hidden}, {"b": data})
    monkeypatch.undo()
    honest = layernorm.forward(X @ W + B, GAMMA, BETA, p).y
    return proof, honest


def test_zero_padding_verifies(monkeypatch):
    proof, honest = _linear_then_layernorm(0, monkeypatch)
    verify_graph(proof)
    assert np.array_equal(proof.statement.outputs["out"], honest)


def test_junk_in_a_committed_bias_padding_is_rejected(monkeypatch):
    """b's real entries are B; its padded entry −200 is added to every row's hidden column 3,
    and the forger's s1, s2 sum all d̂ = 4 columns: a wrong LayerNorm of x·W + B, refused."""
    proof, honest = _linear_then_layernorm(-200, monkeypatch)
    assert not np.array_equal(proof.statement.outputs["out"], honest)
    with pytest.raises(VerificationError) as e:
        verify_graph(proof)
    assert e.value.check == "layernorm.statistics", e.value.detail
