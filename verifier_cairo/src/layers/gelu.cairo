//! GELU as a lookup into its pinned table, y = T[x + 2^(b_in−1)] (mirror of prover/layers/gelu/,
//! module by module; docs/layers/gelu.md): the pinned tables, the parameters, the soundness
//! rule, the lookup relation and witness layout, and the verifier. The statement's shape
//! check and the join run in the encoder class (`model`, `verifier::verify`); the parameter
//! rules and the fork in the lookup class (`lookups::contract`).

pub mod model;
pub mod params;
pub mod relations;
pub mod soundness;
pub mod table;
pub mod verifier;
