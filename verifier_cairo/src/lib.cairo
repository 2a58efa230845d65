//! Cairn's on-chain verifier: the Cairo mirror of the Python verifier in `cairn.prover`,
//! module by module (docs/cairo-verifier.md).

pub mod blake2s;
pub mod calldata;
pub mod channel;
pub mod contract;
pub mod fields;
pub mod matmul;
pub mod merkle;
pub mod mle;
pub mod packing;
pub mod pcs;
pub mod ranges;
pub mod sumcheck;

#[cfg(test)]
mod tests;
