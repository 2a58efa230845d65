//! Declared ranges of weights proven by lookups (mirror of prover/layers/range/, module by
//! module; docs/layers/range.md): the dims' declarations and the lookups' layout, the tables'
//! closed forms and the leaves' claims, the soundness rule, the statement check and the
//! verifier. The statement's shape check and the join run in the encoder class
//! (`model::check`, `verifier::verify`); the rest in the lookup class (`lookups::contract`).

pub mod model;
pub mod relations;
pub mod soundness;
pub mod verifier;
