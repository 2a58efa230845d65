//! The model walk on chain (mirror of prover/graph/, docs/model-walk.md): a graph proof's
//! calldata, its structure and transcript, each node's statement as the verifier sees it, the
//! walk's soundness, and the walk itself, whose nodes the walk classes verify by library_call.

pub mod calldata;
pub mod contract;
pub mod soundness;
pub mod statement;
pub mod verifier;
pub mod views;
