//! Merkle trees over rows of M31 values, Poseidon252 or Blake2s (mirror of prover/merkle/,
//! docs/merkle.md): leaf i commits to row i; a node is H(left, right); a multi-leaf opening
//! supplies each needed sibling once.

pub mod hashers;
pub mod proof;
pub mod verifier;
