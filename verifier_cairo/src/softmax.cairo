//! The softmax proof's pure pieces (mirror of prover/softmax/, module by module;
//! docs/layers/attn.md): its closed-form MLEs, its public parameters and their rules, its
//! soundness budget, the exp table's pinned root, and its lookup relations' keys and witness
//! layout; the verifier that runs the protocol on them (in the lookup class,
//! `lookups::contract`).

pub mod params;
pub mod relations;
pub mod soundness;
pub mod structured;
pub mod tables;
pub mod verifier;
