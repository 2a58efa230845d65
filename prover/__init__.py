"""Cairn's prover core: fields, channels, multilinear tools, layer proofs and their verifiers."""
