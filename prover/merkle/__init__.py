"""Merkle trees over rows of M31 values, with Poseidon252 or Blake2s as the hash.

Format (docs/merkle.md): leaf i commits to row i of a (2^d, width) matrix of canonical M31
values; a node is H(left, right); multi-leaf openings send each needed sibling once.
"""
