"""Multilinear polynomial commitments: Basefold-style folding of a Reed–Solomon code over
the circle's line domains, with a Poseidon252 or Blake2s Merkle hash (docs/pcs.md).

    commitment, data = commit(values, POSEIDON_PARAMS)
    proof = open_batch([(data, claims)], channel)
    verify_batch([(commitment, claims)], proof, POSEIDON_PARAMS, channel)
"""

from cairn.prover.pcs.params import BLAKE2S_PARAMS, POSEIDON_PARAMS, PcsParams
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.prover import CommitmentData, commit, open_batch
from cairn.prover.pcs.verifier import verify_batch

__all__ = [
    "BLAKE2S_PARAMS",
    "POSEIDON_PARAMS",
    "Commitment",
    "CommitmentData",
    "OpeningProof",
    "PcsParams",
    "commit",
    "open_batch",
    "verify_batch",
]
