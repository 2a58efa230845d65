"""QKV projections (seed 003): Q, K, V = X·W_j + 1·B_jᵀ, proved by one λ-batched sum-check."""
