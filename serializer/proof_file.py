"""Versioned JSON proof files (docs/proof-format.md).

Loading validates every field and raises MalformedProofError naming the first bad one.
Consistency between fields (shapes against dimensions, the proof itself) is the verifier's
job, so a tampered-but-well-formed file is rejected by a named check, not here.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.fields.qm31 import QM31
from cairn.prover.graph.declared import WeightRange
from cairn.prover.graph.proof import GraphProof, NodeProof
from cairn.prover.graph.statement import KIND as GRAPH
from cairn.prover.graph.statement import GraphStatement, Node, tensor_digest
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.registry import LAYERS
from cairn.prover.padding import EmptyRowsProof
from cairn.prover.pcs.proof import Commitment, CommittedTensor
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.serializer.codec import MAX_DIM, MAX_LIST, decode, encode, get, integer, tensor
from cairn.serializer.commitment_file import check_commitment, committed_tensor
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.files import check_header, read_document, write_atomic

FORMAT = "cairn-proof"
VERSION = 1
TENSOR_GROUPS = ("inputs", "outputs", "weights")
AnyProof = WalkProof | GraphProof


WeightSource = Callable[[str], Mapping[str, np.ndarray]]
"""The public weights of a named model, by graph name (a graph file may refer to them)."""


def to_json_dict(
    proof: AnyProof, weights_from: str | None = None, certificates: Sequence[WalkProof] = ()
) -> dict[str, Any]:
    """`weights_from` names the model a graph's public weights come from: the file then keeps
    their digests instead of their values (docs/proof-format.md, "Weights by reference");
    `certificates`, the range walks proving a graph's declared weights, travel with it."""
    if isinstance(proof, GraphProof):
        body = _graph_to_json(proof, weights_from)
        if certificates:
            body["certificates"] = [_certificate_to_json(c) for c in certificates]
        return {"format": FORMAT, "version": VERSION, "kind": GRAPH, **body}
    if certificates:
        raise ValueError("certificates go with a model walk's proof")
    kind = proof.statement.kind
    return {"format": FORMAT, "version": VERSION, "kind": kind, **_walk_to_json(proof)}


def save(
    proof: AnyProof,
    path: Path,
    weights_from: str | None = None,
    certificates: Sequence[WalkProof] = (),
) -> None:
    write_atomic(path, dumps(proof, weights_from, certificates))


def dumps(
    proof: AnyProof, weights_from: str | None = None, certificates: Sequence[WalkProof] = ()
) -> str:
    return json.dumps(to_json_dict(proof, weights_from, certificates), separators=(",", ":"))


def _walk_to_json(proof: WalkProof) -> dict[str, Any]:
    st = proof.statement
    return {
        "statement": {
            "dims": list(st.dims),
            **{group: encode(dict(getattr(st, group))) for group in TENSOR_GROUPS},
            "committed": encode(dict(st.committed)),
            "witness": encode(dict(st.witness)),
            "binding": encode(st.binding),
        },
        "proof": {
            "outputs": encode(proof.outputs),
            "layer": encode(proof.layer),
            **_settlements_to_json(proof),
        },
    }


def _tensors(value: Any, path: str) -> dict[str, np.ndarray]:
    if not isinstance(value, dict):
        raise MalformedProofError(path, "expected an object of named tensors")
    return {str(name): tensor(t, f"{path}.{name}") for name, t in value.items()}


def _dims(doc: Any, path: str) -> tuple[int, ...]:
    value = get(doc, "dims", path)
    if not isinstance(value, list):
        raise MalformedProofError(f"{path}.dims", "expected a list of dimensions")
    return tuple(integer(d, f"{path}.dims[{i}]", 0, MAX_DIM) for i, d in enumerate(value))


def _committed(doc: Any, path: str) -> dict[str, CommittedTensor]:
    value = get(doc, "committed", path)
    if not isinstance(value, dict):
        raise MalformedProofError(f"{path}.committed", "expected an object of commitments")
    return {str(name): committed_tensor(c, f"{path}.committed.{name}") for name, c in value.items()}


def _witness(doc: Any, path: str) -> dict[str, Commitment]:
    witness = decode(get(doc, "witness", path), dict[str, Commitment], f"{path}.witness")
    for name, c in witness.items():
        check_commitment(c, f"{path}.witness.{name}")
    return witness


def _binding(st_doc: Any) -> ModelBinding | None:
    """Optional: absent or null when the committed weights are bound to no model."""
    value = st_doc.get("binding") if isinstance(st_doc, dict) else None
    binding = decode(value, ModelBinding | None, "statement.binding")
    if binding is None:
        return None
    for name in ("model_id", "config_hash"):
        if getattr(binding, name) >= STARK_PRIME:
            raise MalformedProofError(f"statement.binding.{name}", "not a felt252")
    for name, index in binding.weights.items():
        if index >> 32:
            raise MalformedProofError(f"statement.binding.weights.{name}", "not a u32 index")
    return binding


SETTLEMENTS = ("inputs", "weights", "opening", "witness_opening")
"""The fields a walk and a graph proof share after their layers: the public inputs' and
weights' merges, the committed weights' opening, the witness opening."""


def _settlements_to_json(proof: WalkProof | GraphProof) -> dict[str, Any]:
    return {name: encode(getattr(proof, name)) for name in SETTLEMENTS}


def _settlements(body: Any) -> dict[str, Any]:
    """The settlement fields, decoded by WalkProof's type hints (GraphProof's are the same)."""
    hints = typing.get_type_hints(WalkProof)
    return {
        name: decode(get(body, name, "proof"), hints[name], f"proof.{name}") for name in SETTLEMENTS
    }


def _walk_from_json(doc: Any, kind: str) -> WalkProof:
    st_doc = get(doc, "statement", "")
    groups = {g: _tensors(get(st_doc, g, "statement"), f"statement.{g}") for g in TENSOR_GROUPS}
    dims = _dims(st_doc, "statement")
    committed = _committed(st_doc, "statement")
    for group, tensors in groups.items():
        if both := tensors.keys() & committed.keys():
            raise MalformedProofError(f"statement.{group}", f"{sorted(both)} are also committed")
    st = Statement(
        kind,
        dims,
        **groups,
        committed=committed,
        witness=_witness(st_doc, "statement"),
        binding=_binding(st_doc),
    )
    body = get(doc, "proof", "")
    layer = decode(get(body, "layer", "proof"), LAYERS[kind].proof_type, "proof.layer")
    # Optional: a file without committed outputs may leave it out.
    outputs = decode(body.get("outputs", {}), dict[str, QM31], "proof.outputs")
    return WalkProof(st, outputs, layer, **_settlements(body))


def _digest_hex(t: np.ndarray) -> str:
    return b"".join(w.to_bytes(4, "little") for w in tensor_digest(t)).hex()


def _graph_to_json(proof: GraphProof, weights_from: str | None) -> dict[str, Any]:
    st = proof.statement
    nodes = [
        {"kind": n.kind, "dims": list(n.dims)}
        | {g: dict(getattr(n, g)) for g in TENSOR_GROUPS}
        | {"witness": encode(dict(n.witness))}
        for n in st.nodes
    ]
    return {
        "statement": {
            "nodes": nodes,
            "hidden": {name: list(shape) for name, shape in st.hidden.items()},
            **{group: encode(dict(getattr(st, group))) for group in TENSOR_GROUPS},
            "committed": encode(dict(st.committed)),
            "binding": encode(st.binding),
            "declared": encode(dict(st.declared)),
        }
        | (
            {
                "weights": {},
                "weights_from": {
                    "model": weights_from,
                    "digests": {n: _digest_hex(t) for n, t in st.weights.items()},
                },
            }
            if weights_from
            else {}
        ),
        "proof": {"outputs": encode(proof.outputs), "nodes": encode(proof.nodes)}
        | _settlements_to_json(proof)
        | {"padding": encode(proof.padding)},
    }


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_LIST:
        raise MalformedProofError(path, f"expected a list of 1 to {MAX_LIST} items")
    return value


def _node(doc: Any, path: str) -> Node:
    kind = get(doc, "kind", path)
    if not isinstance(kind, str) or kind not in LAYERS:
        raise MalformedProofError(f"{path}.kind", f"unknown layer kind {kind!r}")
    wiring = {g: decode(get(doc, g, path), dict[str, str], f"{path}.{g}") for g in TENSOR_GROUPS}
    return Node(kind, _dims(doc, path), **wiring, witness=_witness(doc, path))


def _referred_weights(st_doc: Any, source: WeightSource | None) -> dict[str, np.ndarray]:
    """The public weights a file leaves to their model, rebuilt by `source` and checked
    against the digests the file keeps."""
    ref = get(st_doc, "weights_from", "statement")
    model = decode(get(ref, "model", "statement.weights_from"), str, "statement.weights_from")
    digests = decode(get(ref, "digests", "statement.weights_from"), dict[str, str], "digests")
    if source is None:
        raise MalformedProofError(
            "statement.weights_from", f"the weights are those of model {model!r}: load it"
        )
    weights = dict(source(model))
    if set(weights) != set(digests):
        raise MalformedProofError(
            "statement.weights_from.digests", f"model {model!r} has other weights than the proof"
        )
    for name, t in weights.items():
        if _digest_hex(t) != digests[name]:
            raise MalformedProofError(
                f"statement.weights_from.digests.{name}",
                f"model {model!r}'s weight differs from the one the proof was made with",
            )
    return weights


def _graph_from_json(doc: Any, source: WeightSource | None) -> GraphProof:
    st_doc = get(doc, "statement", "")
    nodes = _list(get(st_doc, "nodes", "statement"), "statement.nodes")
    hidden = decode(get(st_doc, "hidden", "statement"), dict[str, list[int]], "statement.hidden")
    for name, shape in hidden.items():
        for i, d in enumerate(shape):
            integer(d, f"statement.hidden.{name}[{i}]", 1, MAX_DIM)
    st = GraphStatement(
        tuple(_node(n, f"statement.nodes[{i}]") for i, n in enumerate(nodes)),
        {name: tuple(shape) for name, shape in hidden.items()},
        **{g: _tensors(get(st_doc, g, "statement"), f"statement.{g}") for g in TENSOR_GROUPS},
        committed=_committed(st_doc, "statement"),
        binding=_binding(st_doc),
        # Optional: a graph declaring no weight's range may leave it out.
        declared=decode(st_doc.get("declared", {}), dict[str, WeightRange], "statement.declared"),
    )
    if isinstance(st_doc, dict) and "weights_from" in st_doc:
        st = replace(st, weights=_referred_weights(st_doc, source))
    body = get(doc, "proof", "")
    node_docs = _list(get(body, "nodes", "proof"), "proof.nodes")
    if len(node_docs) != len(st.nodes):
        raise MalformedProofError("proof.nodes", f"expected {len(st.nodes)} node proofs")
    node_proofs = []
    for i, (node, n_doc) in enumerate(zip(st.nodes, node_docs, strict=True)):
        path = f"proof.nodes[{i}]"
        merges = decode(get(n_doc, "outputs", path), dict[str, SamePolyProof | None], path)
        layer = decode(get(n_doc, "layer", path), LAYERS[node.kind].proof_type, f"{path}.layer")
        node_proofs.append(NodeProof(merges, layer))
    # Optional, as a walk proof's: a file without committed outputs may leave it out.
    outputs = decode(body.get("outputs", {}), dict[str, QM31], "proof.outputs")
    padding = decode(body.get("padding", {}), dict[str, EmptyRowsProof], "proof.padding")
    return GraphProof(st, outputs, node_proofs, **_settlements(body), padding=padding)


def _certificate_to_json(proof: WalkProof) -> dict[str, Any]:
    return {"kind": proof.statement.kind, **_walk_to_json(proof)}


def _certificates(doc: Any) -> list[WalkProof]:
    """A graph file's certificates (optional): range walks, each read as a walk file's body
    is, a malformed field named under `certificates[i]`."""
    value = doc.get("certificates", []) if isinstance(doc, dict) else []
    if not isinstance(value, list) or len(value) > MAX_LIST:
        raise MalformedProofError("certificates", f"expected a list of at most {MAX_LIST}")
    out = []
    for i, cert in enumerate(value):
        if get(cert, "kind", f"certificates[{i}]") != range_check.KIND:
            raise MalformedProofError(f"certificates[{i}].kind", "expected a range walk")
        try:
            out.append(_walk_from_json(cert, range_check.KIND))
        except MalformedProofError as e:
            raise MalformedProofError(f"certificates[{i}].{e.field}", e.problem) from None
    return out


def from_json_dict(doc: Any, weights: WeightSource | None = None) -> AnyProof:
    return bundle_from_json_dict(doc, weights)[0]


def bundle_from_json_dict(
    doc: Any, weights: WeightSource | None = None
) -> tuple[AnyProof, list[WalkProof]]:
    """The proof and the certificates that travel with it (see to_json_dict)."""
    check_header(doc, FORMAT, VERSION)
    kind = get(doc, "kind", "")
    if kind == GRAPH:
        return _graph_from_json(doc, weights), _certificates(doc)
    if not isinstance(kind, str) or kind not in LAYERS:
        raise MalformedProofError("kind", f"unknown proof kind {kind!r}")
    if "certificates" in doc:
        raise MalformedProofError("certificates", "only a model walk's file carries them")
    return _walk_from_json(doc, kind), []


def load(path: Path, weights: WeightSource | None = None) -> AnyProof:
    """`weights`: where a graph file's referred weights come from (see to_json_dict)."""
    return load_bundle(path, weights)[0]


def load_bundle(
    path: Path, weights: WeightSource | None = None
) -> tuple[AnyProof, list[WalkProof]]:
    """The proof and its certificates."""
    return bundle_from_json_dict(read_document(path, FORMAT, VERSION), weights)
