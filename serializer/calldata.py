"""Proof <-> felt252 calldata, the layout of docs/calldata.md that verifier_cairo reads.

    [0] CALLDATA_VERSION   [1] kind
    kind 1 (matmul, public B):  m, k, n, A, B, C, sum-check rounds
    kind 2 (PCS opening):       statement, opening front, group parts
    kind 3 (matmul, committed B bound to a registered model):
        model_id, weight, config_hash, B's hash tag and root, m, k, n, A, C, sum-check rounds,
        b_value, opening front, group parts

Matrix entries are signed integers embedded mod p, packed 8 per felt. Decoding checks
everything the Cairo reader checks, in its order, and names the offset of the first bad felt.
The PCS parts are in `pcs_calldata`; a proof with an opening also encodes as `CalldataParts`
(everything up to the opening's groups, then one part per group) for on-chain sessions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cairn.prover.channels.poseidon import pack_m31s
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import embed, lift
from cairn.prover.matmul.instance import MatmulInstance, WeightBinding
from cairn.prover.matmul.proof import DEGREE, MatmulProof
from cairn.prover.mle import log2_exact, next_pow2
from cairn.prover.pcs.params import POSEIDON_PARAMS, PcsParams
from cairn.prover.pcs.proof import Commitment, CommittedTensor, OpeningProof
from cairn.prover.pcs.transcript import Statement
from cairn.prover.sumcheck.proof import SumcheckProof
from cairn.prover.walk.proof import WalkProof
from cairn.serializer.codec import MAX_DIM
from cairn.serializer.felts import Reader
from cairn.serializer.pcs_calldata import (
    HASH_TAGS,
    digest_felts,
    encode_opening,
    encode_statement,
    read_digest,
    read_hash,
    read_opening,
    read_statement,
)
from cairn.serializer.walk_calldata import encode_walk_parts, is_walk
from cairn.serializer.walk_calldata import io_felts as walk_io_felts

CALLDATA_VERSION = 2  # 1 had no config hash and no B hash tag in kind 3 (docs/calldata.md)
KIND_MATMUL = 1
KIND_PCS = 2
KIND_COMMITTED_MATMUL = 3


@dataclass(frozen=True)
class PcsOpening:
    """Kind 2: claims on commitments of one hash and the batch opening proving them (verified
    on a fresh Poseidon252Channel with the contract's parameters)."""

    statement: Statement
    proof: OpeningProof


OnchainProof = MatmulProof | PcsOpening | WalkProof
"""A committed-B matmul is kind 3, public B kind 1; a walk proof has its own layout
(`walk_calldata`)."""


@dataclass(frozen=True)
class CalldataParts:
    """A proof's calldata cut where a session may cut it: `front` (header, statement and
    transcript) and one part per PCS fold group; `flat` is what `verify` takes."""

    front: list[int]
    groups: list[list[int]]

    @property
    def flat(self) -> list[int]:
        return [*self.front, *(f for part in self.groups for f in part)]


def encode(proof: OnchainProof, params: PcsParams = POSEIDON_PARAMS) -> list[int]:
    return encode_parts(proof, params).flat


def encode_parts(proof: OnchainProof, params: PcsParams = POSEIDON_PARAMS) -> CalldataParts:
    if isinstance(proof, WalkProof):
        return CalldataParts(*encode_walk_parts(proof))
    if isinstance(proof, PcsOpening):
        header = [CALLDATA_VERSION, KIND_PCS, *encode_statement(proof.statement)]
        opening = encode_opening(proof.statement, proof.proof, params)
        return CalldataParts(header + opening.front, opening.groups)
    inst = proof.instance
    if inst.b_commitment is not None:
        assert proof.b_value is not None and proof.opening is not None
        bound, cw = inst.binding, inst.b_commitment
        head = [CALLDATA_VERSION, KIND_COMMITTED_MATMUL, bound.model_id, bound.weight]
        head += [bound.config_hash, HASH_TAGS[cw.hash], *digest_felts(cw.hash, cw.root)]
        body = _matmul_body(proof, (inst.a, inst.c))
        opening = encode_opening(_b_statement(proof), proof.opening, params)
        tail = [proof.b_value.pack(1), *opening.front]
        return CalldataParts([*head, *body, *tail], opening.groups)
    assert inst.b is not None
    return CalldataParts(
        [CALLDATA_VERSION, KIND_MATMUL, *_matmul_body(proof, (inst.a, inst.b, inst.c))], []
    )


def _matmul_body(proof: MatmulProof, mats: tuple[np.ndarray, ...]) -> list[int]:
    inst = proof.instance
    out = [inst.m, inst.k, inst.n]
    for mat in mats:
        words = pack_m31s(embed(mat).ravel())
        out += [len(words), *words]
    out.append(len(proof.sumcheck.rounds))
    for rnd in proof.sumcheck.rounds:
        out += [len(rnd), *(x.pack(1) for x in rnd)]
    return out


def _b_statement(proof: MatmulProof) -> Statement:
    """The one claim the opening of a committed B proves: B~(r_inner ‖ r_col) = b_value. Its
    point is drawn by the verifier; only its size matters to the calldata."""
    inst = proof.instance
    assert inst.b_commitment is not None and proof.b_value is not None
    point = (proof.b_value,) * inst.b_commitment.n_vars
    return [(inst.b_commitment, [Claim(point, proof.b_value)])]


def decode(felts: list[int], params: PcsParams = POSEIDON_PARAMS) -> OnchainProof:
    """Read and check calldata in the order verifier_cairo/src/calldata.cairo does; each
    failure carries the same check name the contract reverts with."""
    rd = Reader(felts)
    rd.exact("version", CALLDATA_VERSION, "calldata.version")
    kind = rd.take("proof kind")
    if kind == KIND_MATMUL:
        m, k, n = _dims(rd)
        a, b, c = _matrix(rd, "a", (m, k)), _matrix(rd, "b", (k, n)), _matrix(rd, "c", (m, n))
        proof = MatmulProof(MatmulInstance(m, k, n, a, b, c), _rounds(rd, k))
        rd.end()
        return proof
    if kind == KIND_PCS:
        statement = read_statement(rd, params)
        opening = read_opening(rd, statement, params)
        rd.end()
        return PcsOpening(statement, opening)
    if kind == KIND_COMMITTED_MATMUL:
        model_id, weight, config_hash = (
            rd.take(what) for what in ("model id", "weight", "config hash")
        )
        hash_name = read_hash(rd, "B's hash")
        root = read_digest(rd, "B's root", hash_name)
        m, k, n = _dims(rd)
        n_vars = log2_exact(next_pow2(k)) + log2_exact(next_pow2(n))
        if n_vars > params.max_n_vars:
            raise rd.fail(f"B has 2^{n_vars} padded entries", "pcs.size", rd.pos - 1)
        a, c = _matrix(rd, "a", (m, k)), _matrix(rd, "c", (m, n))
        commitment = Commitment(root, n_vars, hash_name)
        binding = WeightBinding(model_id, weight, config_hash)
        inst = MatmulInstance(m, k, n, a, None, c, commitment, binding)
        sumcheck = _rounds(rd, k)
        b_value = rd.qm31("b_value")
        proof = MatmulProof(inst, sumcheck, b_value)
        opening = read_opening(rd, _b_statement(proof), params)
        rd.end()
        return replace(proof, opening=opening)
    raise rd.fail(f"unknown proof kind {kind}", "calldata.kind")


def io_felts(felts: list[int], params: PcsParams = POSEIDON_PARAMS) -> list[int]:
    """The statement's public felts as they stand in well-formed calldata, what the contract's
    `io_hash` hashes (docs/registry.md): m, k, n and the length-prefixed matrices (kind 1),
    the PCS statement (kind 2), or the model id, weight index, config hash, B's hash tag and
    root, m, k, n, A and C (kind 3: which weight of which model the product is with)."""
    if is_walk(felts):
        return walk_io_felts(felts)
    rd = Reader(felts)
    rd.many("header", 2)
    kind, start = felts[1], rd.pos
    if kind == KIND_PCS:
        read_statement(rd, params)
        return felts[start : rd.pos]
    if kind == KIND_COMMITTED_MATMUL:
        rd.many("model id, weight, config hash", 3)
        read_digest(rd, "B's root", read_hash(rd, "B's hash"))
    m, k, n = _dims(rd)
    shapes = [(m, k), (m, n)] if kind == KIND_COMMITTED_MATMUL else [(m, k), (k, n), (m, n)]
    for shape in shapes:
        _matrix(rd, "matrix", shape)
    return felts[start : rd.pos]


def _dims(rd: Reader) -> tuple[int, int, int]:
    m, k, n = (rd.bounded(d, 1, MAX_DIM, "calldata.dims") for d in "mkn")
    return m, k, n


def _matrix(rd: Reader, name: str, shape: tuple[int, int]) -> np.ndarray:
    """`len ‖ words`: the length must be ⌈count/8⌉, then all words are taken before any is
    checked."""
    count = shape[0] * shape[1]
    rd.exact(f"len({name})", -(-count // 8), "calldata.length")
    return lift(rd.m31s(f"{name} words", count)).reshape(shape)


def _rounds(rd: Reader, k: int) -> SumcheckProof:
    n_rounds = log2_exact(next_pow2(k))
    rd.exact("n_rounds", n_rounds, "sumcheck.round_count")
    rounds = []
    for i in range(n_rounds):
        rd.exact(f"round {i} length", DEGREE, "sumcheck.round_degree")
        rounds.append(rd.qm31s(f"round {i} coefficient", DEGREE))
    return SumcheckProof(rounds)


def commitment_entry(tensor: CommittedTensor) -> list[int]:
    """A weight commitment as a registry entry (docs/registry.md): hash tag, root (Poseidon:
    one felt; Blake2s: low and high 128 bits), rank, dimensions. A model's commitments are the
    concatenation of its entries; a kind-3 proof names its B by index."""
    cw = tensor.commitment
    return [HASH_TAGS[cw.hash], *digest_felts(cw.hash, cw.root), len(tensor.shape), *tensor.shape]
