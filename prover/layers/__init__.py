"""Transformer layers, each a walk step: model (forward + statement), proof, prover, verifier."""
