"""Proof <-> felt252 calldata, the layout of docs/calldata.md that verifier_cairo reads.

    [0] VERSION   [1] kind
    kind 2 (PCS opening):  statement, opening front, group parts
    kind 4 (layer proof):  the walk proof in Serde order, group parts (`walk_calldata`)
    kind 5 (graph proof):  the statement, one part per node (last first), the settlement,
                           group parts (`graph_calldata`)

Decoding checks everything the Cairo reader checks, in its order, and names the offset of the
first bad felt. The PCS parts are in `pcs_calldata`; a proof with an opening also encodes as
`CalldataParts` (everything up to the opening's trees, then one part per opened tree) for
on-chain sessions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.prover.graph.proof import GraphProof
from cairn.prover.pcs.params import POSEIDON_PARAMS, PcsParams
from cairn.prover.pcs.proof import CommittedTensor, OpeningProof
from cairn.prover.pcs.transcript import Statement
from cairn.prover.walk.proof import WalkProof
from cairn.serializer.felts import Reader
from cairn.serializer.graph_calldata import (
    decode_graph,
    encode_graph_parts,
    is_graph,
    witness_step_polys,
)
from cairn.serializer.graph_calldata import io_felts as graph_io_felts
from cairn.serializer.header import KIND_PCS, VERSION
from cairn.serializer.pcs_calldata import (
    HASH_TAGS,
    digest_felts,
    encode_opening,
    encode_statement,
    read_opening,
    read_statement,
)
from cairn.serializer.walk_calldata import decode_walk, encode_walk_parts, is_walk
from cairn.serializer.walk_calldata import io_felts as walk_io_felts


@dataclass(frozen=True)
class PcsOpening:
    """Kind 2: claims on commitments of one hash and the batch opening proving them (verified
    on a fresh Poseidon252Channel with the contract's parameters)."""

    statement: Statement
    proof: OpeningProof


OnchainProof = PcsOpening | WalkProof | GraphProof


@dataclass(frozen=True)
class CalldataParts:
    """A proof's calldata cut where a session may cut it: `front` (header, statement and, but
    for a model walk, transcript), a model walk's `walk` parts (one per node's check, one per
    node, last first, the settlement, the witness opening's front and, for its `witness`
    polynomials, one step part each absorbed, then each reduced), and one part per opened PCS
    tree (fold group by fold group: its layer, then its polynomials), a layer (or graph)
    proof's committed tensors' opening's trees, then its witness opening's; `steps` are the
    parts after the front, `flat` what `verify` takes."""

    front: list[int]
    trees: list[list[int]]
    walk: list[list[int]] = field(default_factory=list)
    witness: int = 0

    @property
    def steps(self) -> list[list[int]]:
        return [*self.walk, *self.trees]

    @property
    def walked(self) -> int:
        """How many walk parts a model walk's graph class reads: all but the witness opening's
        step parts (the walk is settled once they are sent)."""
        return len(self.walk) - 2 * self.witness

    @property
    def flat(self) -> list[int]:
        return [*self.front, *(f for part in self.steps for f in part)]

    def describe(self, i: int) -> str:
        """Which part `steps[i]` is, for messages: a model walk's 2n + 2 + 2J parts are its
        nodes' statement checks (node order), its nodes (last first), its settlement, its
        witness opening's front and that front's steps."""
        n = (len(self.walk) - 2 - 2 * self.witness) // 2
        j = i - 2 * n - 2
        if i < n:
            what = f"node {i}'s statement check"
        elif i < 2 * n:
            what = f"node {2 * n - 1 - i}"
        elif i == 2 * n:
            what = "the model walk's settlement"
        elif i == 2 * n + 1:
            what = "the model walk's witness opening's front"
        elif i < len(self.walk):
            stage = "absorbed" if j < self.witness else "reduced"
            what = f"the witness opening's polynomial {j % self.witness} {stage}"
        else:
            what = f"tree {i - len(self.walk) + 1} of {len(self.trees)} of the openings"
        return f"part {i + 1} of {len(self.steps)} ({what})"


def encode(proof: OnchainProof, params: PcsParams = POSEIDON_PARAMS) -> list[int]:
    return encode_parts(proof, params).flat


def encode_parts(proof: OnchainProof, params: PcsParams = POSEIDON_PARAMS) -> CalldataParts:
    if isinstance(proof, PcsOpening):
        header = [VERSION, KIND_PCS, *encode_statement(proof.statement)]
        opening = encode_opening(proof.statement, proof.proof, params)
        return CalldataParts(header + opening.front, opening.trees)
    if isinstance(proof, GraphProof):
        front, walk, trees = encode_graph_parts(proof)
        return CalldataParts(front, trees, walk, witness_step_polys(proof))
    return CalldataParts(*encode_walk_parts(proof))


def decode(felts: list[int], params: PcsParams = POSEIDON_PARAMS) -> OnchainProof:
    """Read and check calldata in the order the contract does (`walk_calldata.decode_walk`,
    `graph_calldata.decode_graph`, or verifier_cairo/src/calldata.cairo for kind 2); each
    failure carries the same check name the contract reverts with."""
    if is_graph(felts):
        return decode_graph(felts)
    if is_walk(felts):
        return decode_walk(felts)
    rd = Reader(felts)
    rd.exact("version", VERSION, "calldata.version")
    rd.exact("proof kind", KIND_PCS, "calldata.kind")
    statement = read_statement(rd, params)
    opening = read_opening(rd, statement, params)
    rd.end()
    return PcsOpening(statement, opening)


def io_felts(felts: list[int], params: PcsParams = POSEIDON_PARAMS) -> list[int]:
    """The statement's public felts as they stand in well-formed calldata, what the contract's
    `io_hash` hashes (docs/registry.md): the walk statement (kind 4), the graph statement
    (kind 5) or the PCS statement (kind 2)."""
    if is_graph(felts):
        return graph_io_felts(felts)
    if is_walk(felts):
        return walk_io_felts(felts)
    rd = Reader(felts)
    rd.many("header", 2)
    read_statement(rd, params)
    return felts[2 : rd.pos]


def commitment_entry(tensor: CommittedTensor) -> list[int]:
    """A weight commitment as a registry entry (docs/registry.md): hash tag, root (Poseidon:
    one felt; Blake2s: low and high 128 bits), rank, dimensions. A model's commitments are the
    concatenation of its entries; a layer proof's binding names each weight's by index."""
    cw = tensor.commitment
    return [HASH_TAGS[cw.hash], *digest_felts(cw.hash, cw.root), len(tensor.shape), *tensor.shape]
