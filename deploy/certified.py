"""Declarations certified on chain (docs/registry.md, "Certified declarations"): a verified
range walk over committed weights leaves, per weight, a key the contract holds
(`is_certified`), so a model walk that declares the same weight's range may rely on it."""

from __future__ import annotations

from collections.abc import Collection

from cairn.prover.channels.poseidon import hash_many
from cairn.prover.errors import VerificationError
from cairn.prover.graph.declared import WeightRange, declared_by
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.walk.statement import Statement
from cairn.serializer.calldata import commitment_entry


def declaration_key(tensor: CommittedTensor, declared: WeightRange) -> int:
    """The key under which the contract holds a committed weight's declaration once a range
    walk certified it (docs/registry.md, "Certified declarations"): Poseidon of the weight's
    registry entry, bits·2 + summed, and its largest column sum (0 unsummed)."""
    entry = commitment_entry(tensor)
    return hash_many([*entry, declared.bits << 1 | declared.summed, declared.col_max or 0])


def certified_keys(st: Statement) -> list[int]:
    """The declarations a verified walk of `st` certifies (the contract's
    `LayerSet::certified`): a range walk's committed weights, in name order."""
    return [declaration_key(tensor, declared) for tensor, declared in declared_by(st)]


def declared_keys(g: GraphStatement) -> list[int]:
    """The declarations a model walk relies on, in name order: the contract refuses it
    (`graph.declared`) unless a verified range walk has certified each."""
    return [declaration_key(g.committed[name], r) for name, r in sorted(g.declared.items())]


def expect_certified(g: GraphStatement, certified: Collection[int]) -> None:
    """`graph.declared` unless every declaration of `g` is among the `certified` keys (the
    contract's check, after the binding's)."""
    for name, key in zip(sorted(g.declared), declared_keys(g), strict=True):
        if key not in certified:
            raise VerificationError("graph.declared", f"{name}: its declaration is not certified")
