//! The Fiat–Shamir channels (mirror of prover/channels/): Poseidon252 for the walk and every
//! sum-check of it, Blake2s for the lookup sub-proofs and the witness opening, and the fork
//! that binds one to the other (docs/channels.md).

pub mod base;
pub mod blake2s;
pub mod fork;
pub mod poseidon252;
