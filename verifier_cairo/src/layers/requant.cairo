//! Requantization y = clamp(⌊(x·M + 2^(k−1))/2^k⌋, ±(2^(b−1) − 1)) proven with range lookups
//! (mirror of prover/layers/requant/, module by module; docs/layers/requant.md): its public
//! parameters and their rules, its soundness rule, its lookup relations' keys and witness
//! layout, the tables' closed-form MLEs, and the verifier. The statement's shape check and the
//! join run in the attention class (`model::check`, `verifier::verify`); the rest in the lookup
//! class (`lookups::contract`).

pub mod model;
pub mod params;
pub mod relations;
pub mod soundness;
pub mod structured;
pub mod verifier;
