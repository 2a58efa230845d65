"""Positional encoding (docs/layers/posenc.md): O = X + P[:s], P a model matrix of c rows."""
