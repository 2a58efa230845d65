"""A walk proof as calldata (docs/calldata.md, "Walk proofs"): the header, then the proof in
Cairo's Serde order (`serde.py`; its layer proof is the variant of the layer's kind), then,
for committed weights, the Merkle openings of their PCS opening one part per fold group, in
the PCS layout (`pcs_calldata`) where an on-chain session may cut."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial

from cairn.prover.layers.registry import LAYERS
from cairn.prover.merkle.hashers import get_hash
from cairn.prover.pcs.params import PARAMS, WITNESS_PCS
from cairn.prover.pcs.proof import Commitment, CommittedTensor, OpeningProof
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.witness import layer_tables
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.felts import Reader
from cairn.serializer.header import KIND_WALK, VERSION
from cairn.serializer.pcs_calldata import encode_opening, read_groups
from cairn.serializer.serde import Decoder, Encoder, resolve

ONCHAIN_KINDS = (
    "linear",
    "qkv",
    "qkv-decode",
    "mha",
    "posenc",
    "matmul",
    "attn",
    "requant",
    "add",
    "pool",
    "embed",
    "gelu",
    "layernorm",
    "range",
)
"""Every layer kind, in the order of the Cairo verifier's `LayerProof` enum."""
assert set(ONCHAIN_KINDS) == set(LAYERS), "a kind the Cairo verifier does not know"


def encode_walk_parts(proof: WalkProof) -> tuple[list[int], list[list[int]]]:
    """(the Serde part, one part per tree: the committed tensors' opening's, then the witness
    opening's)."""
    kind = proof.statement.kind
    front = [VERSION, KIND_WALK]
    Encoder(lambda _: ONCHAIN_KINDS.index(kind)).encode(proof, WalkProof, front)
    st = proof.statement
    witness = partial(witness_commitments, st)
    return front, opening_trees(st.committed, proof.opening, witness, proof.witness_opening)


def committed_commitments(committed: Mapping[str, CommittedTensor]) -> list[Commitment]:
    """The committed tensors' opening's polynomials: by name."""
    return [committed[n].commitment for n in sorted(committed)]


def opening_trees(
    committed: Mapping[str, CommittedTensor],
    opening: OpeningProof | None,
    witness: Callable[[], list[Commitment]],
    witness_opening: OpeningProof | None,
) -> list[list[int]]:
    """The tree parts of a walk's (or a graph's) openings: the committed tensors' opening's,
    then the witness opening's (`witness`: its polynomials, computed only if it is present)."""
    trees: list[list[int]] = []
    if opening is not None and committed:
        commitments = committed_commitments(committed)
        params = PARAMS[commitments[0].hash]
        trees = encode_opening([(c, []) for c in commitments], opening, params).trees
    if witness_opening is not None:
        polys = [(c, []) for c in witness()]
        trees += encode_opening(polys, witness_opening, WITNESS_PCS[polys[0][0].hash]).trees
    return trees


def witness_commitments(st: Statement) -> list[Commitment]:
    """The witness opening's polynomials: the witness stacks, then the kind's fixed tables, each
    by name (prover/walk/witness.py `batch`)."""
    spec = LAYERS[st.kind]
    pinned = {n: t.pinned for n, t in layer_tables(spec, st).items()}
    return [st.witness[n] for n in sorted(st.witness)] + [pinned[n] for n in sorted(pinned)]


def encode_walk(proof: WalkProof) -> list[int]:
    front, trees = encode_walk_parts(proof)
    return [*front, *(f for part in trees for f in part)]


def is_walk(felts: list[int]) -> bool:
    """Calldata of kind 4 (what the contract dispatches on; the reader checks the version)."""
    return len(felts) >= 2 and felts[1] == KIND_WALK


@dataclass(frozen=True)
class WalkFront:
    """A walk proof's Serde part as the walk class reads it: the proof (its opening without
    Merkle openings), the kind its layer proof's variant names (the statement must name the
    same: `statement.kind`, checked by the verifier), and where the group parts start."""

    proof: WalkProof
    layer_kind: str
    groups_at: int


def open_decoder(felts: list[int], proof_kind: int, kinds: list[str] | None = None) -> Decoder:
    """The decoder past the header (`calldata.version`, then `calldata.kind` unless felt 1 is
    `proof_kind`); `kinds` collects the kind of each layer variant read, in reading order."""

    def variant(index: int) -> type | None:
        if index >= len(ONCHAIN_KINDS):
            return None
        if kinds is not None:
            kinds.append(ONCHAIN_KINDS[index])
        return LAYERS[ONCHAIN_KINDS[index]].proof_type

    dec = Decoder(felts, variant)
    if dec.serde("version") != VERSION:
        raise dec.rd.fail("not the layout's version", "calldata.version")
    if dec.serde("kind") != proof_kind:
        raise dec.rd.fail(f"not a proof of kind {proof_kind}", "calldata.kind")
    return dec


def io_felts(felts: list[int]) -> list[int]:
    """The statement's felts in well-formed walk calldata: what the contract's `io_hash`
    hashes (docs/registry.md)."""
    return statement_felts(felts, KIND_WALK, Statement)


def statement_felts(felts: list[int], proof_kind: int, statement_type: type) -> list[int]:
    """The felts of the statement that opens well-formed calldata of `proof_kind`."""
    dec = open_decoder(felts, proof_kind)
    dec.decode(statement_type, "statement")
    return felts[2 : dec.rd.pos]


def decode_walk(felts: list[int]) -> WalkProof:
    """MalformedProofError naming the first failure, as the Cairo readers panic: the Serde
    part (`decode_walk_front`), then the opening's group parts (`read_walk_groups`)."""
    front = decode_walk_front(felts)
    return read_walk_groups(felts, front.groups_at, front.proof)


def decode_walk_front(felts: list[int]) -> WalkFront:
    """The Serde part, as the walk class reads it: its tensors and names (a tensor both public
    and committed: `calldata.names`), `calldata.offchain` (unbounded tensors, or witness
    commitments on a kind that commits no advice), the committed tensors' hash, roots and sizes
    (`pcs.hash`, `merkle.digest`, `pcs.size`), without an opening to follow `calldata.extra`,
    then the nested parts."""
    kinds: list[str] = []
    dec = open_decoder(felts, KIND_WALK, kinds)
    proof = dec.decode(WalkProof, "proof")
    dec.finish()
    st = proof.statement
    if (st.inputs.keys() | st.outputs.keys() | st.weights.keys()) & st.committed.keys():
        raise MalformedProofError("statement", "a tensor public and committed", "calldata.names")
    if st.unbounded:
        raise MalformedProofError(
            "statement", "unbounded tensors are not read on chain", "calldata.offchain"
        )
    if st.witness and LAYERS[kinds[0]].advise is None:
        raise MalformedProofError(
            "statement", f"{kinds[0]} statements carry no witness", "calldata.offchain"
        )
    check_committed(dec.rd, st.committed)
    if (not st.committed or proof.opening is None) and proof.witness_opening is None:
        dec.rd.end()
    dec.nested()
    return WalkFront(resolve(proof), kinds[0], dec.rd.pos)


def check_committed(rd: Reader, committed: Mapping[str, CommittedTensor]) -> None:
    """Committed tensors the contract can open: one known hash (`pcs.hash`), roots that are
    its digests (`merkle.digest`), sizes it opens (`pcs.size`)."""
    if not committed:
        return
    commitments = committed_commitments(committed)
    params = PARAMS.get(commitments[0].hash)
    if params is None or any(c.hash != params.hash for c in commitments):
        raise rd.fail("committed tensors need one known hash", "pcs.hash")
    if not all(get_hash(params.hash).is_digest(c.root) for c in commitments):
        raise rd.fail(f"a root is not a {params.hash} digest", "merkle.digest")
    if any(c.n_vars > params.max_n_vars for c in commitments):
        raise rd.fail("a committed tensor is too large", "pcs.size")


def read_walk_groups(felts: list[int], groups_at: int, proof: WalkProof) -> WalkProof:
    """The committed tensors' opening's group parts from `groups_at`, then the witness
    opening's (as the main contract reads them, after the walk), then `calldata.extra`; the
    proof as it stands without."""
    st = proof.statement
    witness = partial(witness_commitments, st)
    opening, witness_opening = read_openings(
        felts, groups_at, st.committed, proof.opening, witness, proof.witness_opening
    )
    return replace(proof, opening=opening, witness_opening=witness_opening)


def read_openings(
    felts: list[int],
    groups_at: int,
    committed: Mapping[str, CommittedTensor],
    opening: OpeningProof | None,
    witness: Callable[[], list[Commitment]],
    witness_opening: OpeningProof | None,
) -> tuple[OpeningProof | None, OpeningProof | None]:
    """The two openings with their Merkle openings read from `groups_at`, in `opening_trees`'
    order (the committed tensors' opening only with committed tensors), then
    `calldata.extra`."""
    rd = Reader(felts)
    rd.pos = groups_at
    if committed and opening is not None:
        commitments = committed_commitments(committed)
        polys, layers = read_groups(rd, commitments, PARAMS[commitments[0].hash])
        opening = replace(opening, poly_openings=polys, layer_openings=layers)
    if witness_opening is not None:
        commitments = witness()
        params = WITNESS_PCS.get(commitments[0].hash)
        if params is None or any(c.hash != params.hash for c in commitments):
            raise rd.fail("the witness opening's polynomials need one known hash", "pcs.hash")
        polys, layers = read_groups(rd, commitments, params)
        witness_opening = replace(witness_opening, poly_openings=polys, layer_openings=layers)
    rd.end()
    return opening, witness_opening
