//! LayerNorm with exact integer statistics (mirror of prover/layers/layernorm/, module by
//! module; docs/layers/layernorm.md): its parameters and their rules, its soundness rule, its
//! lookup relations and witness layout, the statistics step, the statement check and the
//! verifier. The shape check and the join run in the encoder class (`model::check`,
//! `verifier::verify`); the parameter and range rules and the fork in the lookup class.

pub mod model;
pub mod params;
pub mod relations;
pub mod soundness;
pub mod statistics;
pub mod verifier;
