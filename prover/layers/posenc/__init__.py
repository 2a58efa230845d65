"""Positional encoding (seed 002): O = X + P[:s], P a model matrix of c rows."""
