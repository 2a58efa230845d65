"""starknet-py's class and transaction hashes run on the native Poseidon (deploy/contract.py):
it must equal poseidon_py's sponge, which it replaces, on every length and value range."""

import random

import pytest
from poseidon_py.poseidon_hash import poseidon_hash_many as python_sponge
from starknet_py.hash import hash_method, sierra_class_hash
from starknet_py.hash import transaction as transaction_hash

from cairn.deploy import contract  # noqa: F401  (installs the native sponge)
from cairn.prover.channels.poseidon import STARK_PRIME, hash_many


@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 7, 64, 1001])
def test_the_native_sponge_is_poseidon_pys(length):
    rng = random.Random(length)
    edges = [0, 1, STARK_PRIME - 1, (1 << 251) - 1]
    felts = [rng.choice(edges) if rng.random() < 0.3 else rng.randrange(STARK_PRIME)
             for _ in range(length)]  # fmt: skip
    assert hash_many(felts) == python_sponge(felts)


def test_starknet_py_hashes_with_the_native_sponge():
    for module in (hash_method, sierra_class_hash, transaction_hash):
        assert module.poseidon_hash_many is hash_many
