"""Proofs to and from files (versioned JSON) and felt252 calldata (docs/calldata.md)."""
