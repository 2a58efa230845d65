"""Linear projection (docs/layers/linear.md): Y = X·W + 1·Bᵀ; qkv is the batch of three."""
