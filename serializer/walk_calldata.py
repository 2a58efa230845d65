"""A walk proof as calldata (docs/calldata.md, "Walk proofs"): the header, then the proof in
Cairo's Serde order (`serde.py`); its layer proof is the variant of the layer's kind."""

from __future__ import annotations

from cairn.prover.layers.registry import LAYERS
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.statement import Statement
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.serde import Decoder, Encoder, resolve

WALK_VERSION = 3
"""The walk layout's version (kinds 1–3 keep version 2, docs/calldata.md)."""
KIND_WALK = 4
ONCHAIN_KINDS = ("linear", "qkv", "qkv-decode", "mha", "posenc")
"""The layer kinds the Cairo verifier knows, in the order of its `LayerProof` enum."""


def is_onchain(kind: str) -> bool:
    return kind in ONCHAIN_KINDS


def encode_walk(proof: WalkProof) -> list[int]:
    """ValueError if the Cairo verifier cannot read this proof (its kind, or an opening)."""
    kind = proof.statement.kind
    if kind not in ONCHAIN_KINDS:
        raise ValueError(f"{kind!r} proofs cannot be verified on chain yet")
    out = [WALK_VERSION, KIND_WALK]
    Encoder(lambda _: ONCHAIN_KINDS.index(kind)).encode(proof, WalkProof, out)
    return out


def is_walk(felts: list[int]) -> bool:
    """Walk calldata starts with its own version (what the contract dispatches on)."""
    return bool(felts) and felts[0] == WALK_VERSION


def _variant(index: int) -> type | None:
    return LAYERS[ONCHAIN_KINDS[index]].proof_type if index < len(ONCHAIN_KINDS) else None


def _header(felts: list[int]) -> Decoder:
    dec = Decoder(felts, _variant)
    if dec.serde("version") != WALK_VERSION:
        raise dec.rd.fail("not the walk layout's version", "calldata.version")
    if dec.serde("kind") != KIND_WALK:
        raise dec.rd.fail("not a walk proof", "calldata.kind")
    return dec


def io_felts(felts: list[int]) -> list[int]:
    """The statement's felts in well-formed walk calldata: what the contract's `io_hash`
    hashes (docs/registry.md)."""
    dec = _header(felts)
    dec.decode(Statement, "statement")
    return felts[2 : dec.rd.pos]


def decode_walk(felts: list[int]) -> WalkProof:
    """MalformedProofError naming the first failure, as the Cairo reader reverts."""
    dec = _header(felts)
    proof = dec.decode(WalkProof, "proof")
    dec.finish()
    st = proof.statement
    if st.committed or st.witness or st.unbounded:
        raise MalformedProofError(
            "statement", "committed tensors and witness are not read on chain", "calldata.offchain"
        )
    return resolve(proof)
