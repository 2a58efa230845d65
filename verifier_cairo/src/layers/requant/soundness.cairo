//! Requant's soundness rule (mirror of prover/layers/requant/soundness.py `security_problem`;
//! docs/layers/requant.md, "Soundness").
//!
//! Python refuses a configuration whose witness fits no stack (a column of 2^n entries with
//! n > 22) or whose error terms, counts N over |F| = p^4, total less than 96 bits — N ≥ 2^28,
//! as softmax/soundness.cairo shows. Once the layout fits, n ≤ 22, ⌈k/2⌉ ≤ 15 and t ≤ 20 (the
//! table rule runs first), so the LogUp term is at most 2^24 + 2^15 + 2^22 + 2^20, the GKR
//! term Σ_{j<24} (3j + 5) = 948 and the identity term 2n = 44: N < 2^25, never refused. The
//! layout is then the whole rule.

use super::params::RequantParams;
use super::relations::witness_layout;

/// Whether Python's `security_problem` names a problem for 2^n entries (after the table rule).
pub fn security_problem(n: u32, params: @RequantParams) -> bool {
    witness_layout(n, params).is_none()
}
