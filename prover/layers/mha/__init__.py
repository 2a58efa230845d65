"""Multi-head attention (docs/layers/mha.md): QKᵀ per head with masking, and A·V per head.
Softmax, the map from the masked scores S_M to A, is NOT proven here: both sit in the statement."""
