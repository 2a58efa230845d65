//! M31 and its extensions CM31 and QM31 in plain Cairo (mirror of prover/fields/).
pub mod cm31;
pub mod m31;
pub mod qm31;
