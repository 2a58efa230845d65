"""PCS statements and opening proofs as felt252 calldata (docs/calldata.md, "PCS opening"),
the layout verifier_cairo/src/pcs/calldata.cairo reads. Commitments of either Merkle hash go
on chain: a Poseidon digest is one felt, a Blake2s digest (its 32 bytes read big-endian) two,
its low and high 128 bits, as Cairo serializes a u256.

An opening is a *front* (the transcript part: rounds, merged values, layer roots, final value,
nonce) and one *group part* per fold group (the Merkle openings that group reads), so that a
contract session can check the front and the groups in separate transactions. Every count
the verifier knows in advance is checked where it is read, with the check name of
`pcs.verifier`; the counts of opened leaves and siblings follow from the queries, so they are
length-prefixed and checked by the verifier.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from cairn.prover.channels.poseidon import pack_m31s
from cairn.prover.claims import Claim
from cairn.prover.merkle.proof import MerkleOpening
from cairn.prover.pcs.params import PcsParams, poly_log_leaf
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.queries import BatchLayout
from cairn.prover.pcs.transcript import Statement, aligned_point
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.serializer.felts import Reader

HASH_TAGS = {"poseidon": 1, "blake2s": 2}  # in statements and registry entries
HASHES_BY_TAG = {tag: name for name, tag in HASH_TAGS.items()}
DIGEST_FELTS = {"poseidon": 1, "blake2s": 2}
HALF = 1 << 128
NOT_A_DIGEST = 1 << 256  # what a Blake2s digest with a half >= 2^128 decodes to
MAX_POLYS = 256
MAX_CLAIMS = 256
ROUND_SENT = 2  # [c0, c2]


@dataclass(frozen=True)
class OpeningCalldata:
    """The felts of one opening proof: the front, then one part per opened tree, group by
    group (a group's layer, then its polynomials): where a session may cut."""

    front: list[int]
    trees: list[list[int]]


def layout_of(statement: Statement, params: PcsParams) -> BatchLayout:
    return BatchLayout.of([c.n_vars for c, _ in statement], params.log_arity)


def digest_felts(hash_name: str, digest: int) -> list[int]:
    """A digest's calldata felts: Poseidon as it is, Blake2s as (low, high) 128-bit halves."""
    return [digest] if DIGEST_FELTS[hash_name] == 1 else [digest % HALF, digest // HALF]


def digest_of(hash_name: str, felts: list[int]) -> int:
    """The digest `digest_felts` wrote; a Blake2s half >= 2^128 (no digest's) gives
    NOT_A_DIGEST, which the Merkle verifier refuses (`merkle.digest`) where Cairo does."""
    if DIGEST_FELTS[hash_name] == 1:
        return felts[0]
    low, high = felts
    return NOT_A_DIGEST if max(low, high) >= HALF else high * HALF + low


def read_digest(rd: Reader, what: str, hash_name: str) -> int:
    """A root's felts, refused at once (`merkle.digest`) unless they are a digest's."""
    digest = digest_of(hash_name, rd.many(what, DIGEST_FELTS[hash_name]))
    if digest == NOT_A_DIGEST:
        raise rd.fail(f"{what}: a half is not below 2^128", "merkle.digest")
    return digest


def read_hash(rd: Reader, what: str, expected: str | None = None) -> str:
    """A hash tag (`pcs.hash` unless 1 Poseidon or 2 Blake2s, or not `expected`)."""
    tag = rd.take(what)
    name = HASHES_BY_TAG.get(tag)
    if name is None or expected not in (None, name):
        raise rd.fail(f"{what} {tag}: not {expected or 'a known hash'}", "pcs.hash")
    return name


def statement_params(statement: Statement, params: PcsParams) -> PcsParams:
    """`params` for the statement's hash (every polynomial's, or `pcs.hash` in the reader):
    the contract's parameters are the same numbers for both hashes."""
    return replace(params, hash=statement[0][0].hash)


def encode_statement(statement: Statement) -> list[int]:
    """J, then per polynomial: hash tag, n_vars, root, K, and K claims (point, value)."""
    out = [len(statement)]
    for commitment, claims in statement:
        out += [HASH_TAGS[commitment.hash], commitment.n_vars]
        out += [*digest_felts(commitment.hash, commitment.root), len(claims)]
        for claim in claims:
            out += [x.pack(1) for x in (*claim.point, claim.value)]
    return out


def read_statement(rd: Reader, params: PcsParams) -> list[tuple[Commitment, list[Claim]]]:
    """The checks of `pcs.front._check_poly`, poly by poly as the felts come; the
    first polynomial's hash tag is every polynomial's."""
    statement: list[tuple[Commitment, list[Claim]]] = []
    for j in range(rd.bounded("polynomial count", 1, MAX_POLYS, "pcs.statement")):
        hash_name = read_hash(rd, f"polynomial {j} hash", statement[0][0].hash if j else None)
        n_vars = rd.bounded(f"polynomial {j} n_vars", 0, params.max_n_vars, "pcs.size")
        root = read_digest(rd, f"polynomial {j} root", hash_name)
        n_claims = rd.bounded(f"polynomial {j} claim count", 1, MAX_CLAIMS, "pcs.claim_shape")
        claims = []
        for k in range(n_claims):
            *point, value = rd.qm31s(f"polynomial {j} claim {k}", n_vars + 1)
            claims.append(Claim(tuple(point), value))
        statement.append((Commitment(root, n_vars, hash_name), claims))
    return statement


def _rounds(rounds: list[list]) -> list[int]:
    return [len(rounds), *(x.pack(1) for sent in rounds for x in sent)]


def _opening(hash_name: str, opening: MerkleOpening) -> list[int]:
    words = [w for row in opening.leaves for w in pack_m31s(row)]
    siblings = [f for s in opening.siblings for f in digest_felts(hash_name, s)]
    return [len(opening.leaves), *words, len(opening.siblings), *siblings]


def encode_opening(statement: Statement, proof: OpeningProof, params: PcsParams) -> OpeningCalldata:
    hash_name = statement[0][0].hash
    front = [
        *_rounds(proof.merge.rounds),
        len(proof.merged_values),
        *(x.pack(1) for x in proof.merged_values),
        *_rounds(proof.fold.rounds),
        len(proof.layer_roots),
        *(f for root in proof.layer_roots for f in digest_felts(hash_name, root)),
        proof.final_value.pack(1),
        proof.pow_nonce,
    ]
    layout = layout_of(statement, params)
    if len(proof.poly_openings) != len(statement):
        raise ValueError(f"{len(proof.poly_openings)} polynomial openings for {len(statement)}")
    trees = []
    for g in range(len(layout.groups)):
        # As many layer openings as the proof holds (a short list is refused at its count).
        if 0 < g <= len(proof.layer_openings):
            trees.append(_opening(hash_name, proof.layer_openings[g - 1]))
        for j in layout.group_polys(g):
            trees.append(_opening(hash_name, proof.poly_openings[j]))
    return OpeningCalldata(front, trees)


def _read_rounds(rd: Reader, what: str, count: int) -> SumcheckProof:
    rd.exact(f"{what} round count", count, "pcs.round_count")
    return SumcheckProof([rd.qm31s(f"{what} round {i}", ROUND_SENT) for i in range(count)])


def _read_opening(rd: Reader, what: str, width: int, hash_name: str) -> MerkleOpening:
    """n_leaves ‖ each leaf's `width` values packed ‖ n_siblings ‖ their digests' felts."""
    n_leaves = rd.take(f"{what} leaf count")
    leaves = [row.tolist() for row in rd.m31_rows(f"{what} leaves", n_leaves, width)]
    size = DIGEST_FELTS[hash_name]
    felts = rd.many(f"{what} siblings", size * rd.take(f"{what} sibling count"))
    siblings = [digest_of(hash_name, felts[i : i + size]) for i in range(0, len(felts), size)]
    return MerkleOpening(leaves, siblings)


def read_opening(rd: Reader, statement: Statement, params: PcsParams) -> OpeningProof:
    """The checks of `pcs.front.check_shape` at the counts, then every group's openings."""
    layout, hash_name = layout_of(statement, params), statement[0][0].hash
    n, aligned = layout.n_vars, aligned_point(statement) is not None
    merge = _read_rounds(rd, "merge", 0 if aligned else n)
    n_merged = rd.exact("merged value count", 0 if aligned else len(statement), "pcs.merge_count")
    merged_values = rd.qm31s("merged value", n_merged)
    fold = _read_rounds(rd, "fold", n)
    n_layers = rd.exact("layer root count", len(layout.groups) - 1, "pcs.layer_count")
    layer_roots = [read_digest(rd, f"layer root {i}", hash_name) for i in range(n_layers)]
    final_value = rd.qm31("final value")
    pow_nonce = rd.bounded("nonce", 0, (1 << 64) - 1, "pcs.pow")
    poly_openings, layer_openings = read_groups(rd, [c for c, _ in statement], params)
    return OpeningProof(
        merge,
        merged_values,
        fold,
        layer_roots,
        final_value,
        pow_nonce,
        poly_openings,
        layer_openings,
    )


def read_groups(
    rd: Reader, commitments: Sequence[Commitment], params: PcsParams
) -> tuple[list[MerkleOpening], list[MerkleOpening]]:
    """Every fold group's part: its layer's opening (after the first), then its polynomials'."""
    layout = BatchLayout.of([c.n_vars for c in commitments], params.log_arity)
    hash_name = commitments[0].hash
    poly_openings: dict[int, MerkleOpening] = {}
    layer_openings = []
    for g, (s, e) in enumerate(layout.groups):
        if g:
            layer_openings.append(_read_opening(rd, f"layer {g}", 4 << (e - s), hash_name))
        for j in layout.group_polys(g):
            width = 1 << poly_log_leaf(commitments[j].n_vars, params)
            poly_openings[j] = _read_opening(rd, f"polynomial {j}", width, hash_name)
    return [poly_openings[j] for j in range(len(commitments))], layer_openings
