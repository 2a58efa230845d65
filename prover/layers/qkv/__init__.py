"""QKV projections (docs/layers/qkv.md): Q, K, V = X·W_j + 1·B_jᵀ, linear's projection batched
three ways by one λ-batched sum-check (prover/layers/linear/projection.py)."""
