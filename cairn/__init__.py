"""Cairn: prove transformer inference over M31, verify it in Python and on Starknet."""
