//! Batched LogUp-GKR (mirror of prover/lookups/, docs/lookups.md): the fraction tree's gate and
//! batching, and the verifier that walks it from the roots to the leaves; the lookup class,
//! which verifies the lookup layers' proofs (softmax, requant) for the walk classes.

pub mod circuit;
pub mod contract;
pub mod verifier;
