"""A model walk bound to a registered model (docs/registry.md, docs/model-walk.md "On
chain"): the binding is absorbed before any challenge, names a model and exactly the committed
weights (not committed inputs or outputs), and the contract checks every weight against the
registry; the record keeps the model id."""

import dataclasses

import pytest

from cairn.deploy.registry import Model, contract_check
from cairn.prover.errors import VerificationError
from cairn.prover.graph.verifier import verify_graph
from cairn.serializer import calldata
from tests.graph_examples import CONFIG_HASH, MODEL_ID, graph_proof


def _registered(name: str) -> dict[int, Model]:
    """The model as `cairn register-model --proof` registers it: the weights by name."""
    g = graph_proof(name).statement
    names = sorted(g.committed_weights())
    entries = [f for n in names for f in calldata.commitment_entry(g.committed[n])]
    return {MODEL_ID: Model(CONFIG_HASH, tuple(entries))}


@pytest.mark.parametrize("name", ["encoder_bound", "encoder_bound_io"])
def test_a_bound_graph_is_checked_against_the_registry(name):
    proof = graph_proof(name)
    verify_graph(proof)
    felts = calldata.encode(proof)
    models = _registered(name)
    assert contract_check(felts, models) is None
    assert contract_check(felts, {}) == "registry.unknown_model"
    other = {MODEL_ID: Model(CONFIG_HASH + 1, models[MODEL_ID].commitments)}
    assert contract_check(felts, other) == "registry.config"
    b = proof.statement.binding
    assert b is not None
    first, second = sorted(b.weights)[:2]
    swapped = {**b.weights, first: b.weights[second], second: b.weights[first]}
    g = dataclasses.replace(proof.statement, binding=dataclasses.replace(b, weights=swapped))
    with pytest.raises(VerificationError):  # absorbed: the transcript differs
        verify_graph(dataclasses.replace(proof, statement=g))


def test_the_binding_is_absorbed():
    """The same proof presented as another model's: refused by the walk, before any registry."""
    proof = graph_proof("encoder_bound")
    b = proof.statement.binding
    assert b is not None
    g = dataclasses.replace(proof.statement, binding=dataclasses.replace(b, model_id=8))
    with pytest.raises(VerificationError):
        verify_graph(dataclasses.replace(proof, statement=g))


def test_a_binding_names_a_model_and_exactly_the_committed_weights():
    proof = graph_proof("encoder_bound_io")
    b = proof.statement.binding
    assert b is not None
    assert "x" not in b.weights and "pooled" not in b.weights  # committed I/O: not weights
    cases = {
        "model 0": dataclasses.replace(b, model_id=0),
        "a weight left out": dataclasses.replace(b, weights=dict(list(b.weights.items())[1:])),
        "an input named": dataclasses.replace(b, weights={**b.weights, "x": 9}),
    }
    for doc, binding in cases.items():
        g = dataclasses.replace(proof.statement, binding=binding)
        with pytest.raises(VerificationError) as e:
            verify_graph(dataclasses.replace(proof, statement=g))
        assert e.value.check == "statement.binding", doc
        felts = calldata.encode(dataclasses.replace(proof, statement=g))
        assert contract_check(felts, _registered("encoder_bound_io")) == "statement.binding", doc


def test_unbound_graphs_record_no_model():
    felts = calldata.encode(graph_proof("encoder"))
    assert contract_check(felts, {}) is None
