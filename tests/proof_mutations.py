"""Every single-point tampering of a proof tree, found by walking its dataclass fields."""

import dataclasses
import re
import typing
from collections.abc import Callable, Iterator
from typing import Any

from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.sameply.proof import SamePolyProof
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.prover.walk.layer import LayerSpec
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.verifier import verify_walk

OTHER_HASH = {"poseidon": "blake2s", "blake2s": "poseidon"}
"""A commitment's hash swapped for the PCS's other one (a wrong-hash tampering)."""

# What an absent optional proof is replaced with: a proof where none is due.
_STAND_INS = {SamePolyProof: SamePolyProof(SumcheckProof([]), QM31.zero())}


def _stand_in(owner: type, name: str) -> Any:
    """A value for an absent `X | None` field, by its type hint."""
    arms = typing.get_args(typing.get_type_hints(owner)[name])
    return next((_STAND_INS[a] for a in arms if a in _STAND_INS), None)


def mutations(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, tampered copy): each QM31 and int plus one, each list one item shorter and one longer,
    each present optional proof removed and each absent one supplied, each dict key dropped."""
    if isinstance(value, QM31):
        yield path, value + QM31.one()
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path, value + 1
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            sub = getattr(value, f.name)
            where = f"{path}.{f.name}"
            for p, m in mutations(sub, where):
                yield p, dataclasses.replace(value, **{f.name: m})
            if isinstance(sub, SamePolyProof):
                yield f"{where}=None", dataclasses.replace(value, **{f.name: None})
            elif sub is None and (stand_in := _stand_in(type(value), f.name)) is not None:
                yield f"{where}=proof", dataclasses.replace(value, **{f.name: stand_in})
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for p, m in mutations(item, f"{path}[{i}]"):
                yield p, [*value[:i], m, *value[i + 1 :]]
        if value:
            yield f"{path}-last", value[:-1]
            yield f"{path}+last", [*value, value[-1]]
    elif isinstance(value, dict):
        for key, item in value.items():
            for p, m in mutations(item, f"{path}.{key}"):
                yield p, {**value, key: m}
            if isinstance(item, SamePolyProof):
                yield f"{path}.{key}=None", {**value, key: None}
            elif item is None:  # the walk's dicts map names to SamePolyProof | None
                yield f"{path}.{key}=proof", {**value, key: _STAND_INS[SamePolyProof]}
            yield f"{path}.{key}-key", {k: v for k, v in value.items() if k != key}


def walk_mutations(proof: WalkProof) -> Iterator[tuple[str, WalkProof]]:
    """Every tampering of the committed outputs' values, the layer proof and the settlement
    proofs (not of the statement)."""
    for name in ("outputs", "layer", "inputs", "weights"):
        for p, m in mutations(getattr(proof, name), name):
            yield p, dataclasses.replace(proof, **{name: m})


def _sampled(tamperings: Iterator[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """Within Merkle openings (thousands of values sharing each field's role) only the first
    two tamperings of each field path are kept."""
    seen: dict[str, int] = {}
    for path, tampered in tamperings:
        pattern = re.sub(r"\[\d+\]", "[]", path)
        seen[pattern] = seen.get(pattern, 0) + 1
        if "opening" not in path or seen[pattern] <= 2:
            yield path, tampered


def witness_opening_mutations(
    proof: WalkProof | GraphProof,
) -> Iterator[tuple[str, WalkProof | GraphProof]]:
    """Every tampering of the walk's witness opening (Merkle openings sampled), and its
    removal."""
    if proof.witness_opening is None:
        return
    yield "witness_opening=None", dataclasses.replace(proof, witness_opening=None)
    for path, tampered in _sampled(mutations(proof.witness_opening, "witness_opening")):
        yield path, dataclasses.replace(proof, witness_opening=tampered)


def sampled_layer_mutations(proof: WalkProof) -> Iterator[tuple[str, WalkProof]]:
    """Every tampering of the layer proof and of the witness opening, Merkle openings
    sampled."""
    for path, tampered in _sampled(mutations(proof.layer, "layer")):
        yield path, dataclasses.replace(proof, layer=tampered)
    yield from witness_opening_mutations(proof)  # type: ignore[misc]


def graph_mutations(proof: GraphProof) -> Iterator[tuple[str, GraphProof]]:
    """Every tampering of the graph's own parts (the committed outputs' values, the merges on
    each node's outputs, the node list, the settlements of public inputs and weights, the
    committed inputs' padding proofs, the witness opening sampled) and,
    inside each layer proof, one per field path (every index of a list alike): the layers' own
    tests tamper with every value."""
    seen: set[str] = set()
    for name in ("outputs", "nodes", "inputs", "weights", "padding"):
        for path, tampered in mutations(getattr(proof, name), name):
            node, layer, inside = path.partition(".layer")
            key = node + layer + re.sub(r"\[\d+\]", "[]", inside)
            if layer and key in seen:
                continue
            seen.add(key)
            yield path, dataclasses.replace(proof, **{name: tampered})
    yield from witness_opening_mutations(proof)  # type: ignore[misc]


def check_of(spec: LayerSpec | None, proof: WalkProof | GraphProof) -> str | None:
    """The check the verifier fails `proof` on, or None if it accepts (a graph proof carries
    its layers' kinds: no spec)."""
    try:
        if isinstance(proof, GraphProof):
            verify_graph(proof)
        else:
            assert spec is not None
            verify_walk(spec, proof)
    except VerificationError as err:
        return err.check
    return None


def rejections(
    spec: LayerSpec | None,
    proof: Any,
    tamperings: Callable[[Any], Iterator[tuple[str, Any]]] = walk_mutations,
) -> dict[str, str]:
    """Verify every tampering of `proof`; each must be rejected. Returns check -> first path."""
    hit: dict[str, str] = {}
    for path, tampered in tamperings(proof):
        check = check_of(spec, tampered)
        if check is None:
            raise AssertionError(f"tampering {path} was accepted")
        hit.setdefault(check, path)
    return hit


def witness_tamperings(proof: WalkProof, prefix: str) -> Iterator[WalkProof]:
    """The proof under statements whose witness is not the layout's single stack `prefix.0`:
    none, a wrong size, a wrong hash, a foreign name, an extra stack."""
    st = proof.statement
    c = st.witness[f"{prefix}.0"]
    for witness in (
        {},
        {f"{prefix}.0": dataclasses.replace(c, n_vars=c.n_vars + 1)},
        {f"{prefix}.0": dataclasses.replace(c, hash=OTHER_HASH[c.hash])},
        {"other.0": c},
        {f"{prefix}.0": c, f"{prefix}.1": c},
    ):
        yield dataclasses.replace(proof, statement=dataclasses.replace(st, witness=witness))
