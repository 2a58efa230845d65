//! Batched LogUp-GKR (mirror of prover/lookups/, docs/lookups.md): the fraction tree's gate and
//! batching, and the verifier that walks it from the roots to the leaves.

pub mod circuit;
pub mod verifier;
