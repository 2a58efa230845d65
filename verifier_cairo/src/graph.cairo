//! The model walk on chain (mirror of prover/graph/, docs/model-walk.md): a graph proof's
//! calldata, its structure and transcript, each node's statement as the verifier sees it, the
//! walk's soundness, the walk itself, whose nodes the walk classes verify by library_call, and
//! what a session stores of its verified nodes.

pub mod calldata;
pub mod contract;
pub mod records;
pub mod soundness;
pub mod statement;
pub mod verifier;
pub mod views;
