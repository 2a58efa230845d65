"""QKV projections (docs/layers/qkv.md): Q, K, V = X·W_j + 1·B_jᵀ by one λ-batched sum-check."""
