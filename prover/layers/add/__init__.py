"""Residual add (docs/layers/add.md): Y = A + B, entry by entry."""
