//! Cairn's on-chain verifier: the Cairo mirror of the Python verifier in `cairn.prover`,
//! module by module (docs/cairo-verifier.md).

pub mod blake2s;
pub mod bounded_int;
pub mod calldata;
pub mod channels;
pub mod contract;
pub mod fields;
pub mod graph;
pub mod layers;
pub mod lookups;
pub mod merkle;
pub mod mle;
pub mod packing;
pub mod padding;
pub mod pcs;
pub mod ranges;
pub mod sameply;
pub mod softmax;
pub mod stored;
pub mod sumcheck;
pub mod walk;

#[cfg(test)]
mod tests;
