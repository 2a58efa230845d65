//! Multilinear polynomial commitments, verifier side (mirror of prover/pcs/, docs/pcs.md):
//! Basefold-style folding of a Reed–Solomon code over M31's circle line domains, Poseidon252
//! or Blake2s Merkle trees, batch openings of many polynomials at many points.

pub mod calldata;
pub mod code;
pub mod contract;
pub mod domain;
pub mod front;
pub mod params;
pub mod proof;
pub mod queries;
pub mod stack;
pub mod transcript;
pub mod verifier;
