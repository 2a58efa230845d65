//! The claim walk on chain (mirror of prover/walk/, docs/claim-walk.md): a layer proof's
//! calldata, statement, transcript and settlement; the layers themselves are in `layers`.

pub mod calldata;
pub mod contract;
pub mod layer;
pub mod proof;
pub mod statement;
pub mod tensor;
pub mod verifier;
