//! Multi-head attention with the softmax boundary: QKᵀ with masking and A·V for all heads,
//! S_M and A public (mirror of prover/layers/mha/, module by module; docs/layers/mha.md).

pub mod heads;
pub mod model;
pub mod structured;
pub mod verifier;
