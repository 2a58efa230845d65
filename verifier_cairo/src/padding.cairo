//! Zero rows of committed tables (mirror of prover/padding.py): one degree-3 sum-check shows
//! the rows from `start` on are zero in every table of one l̂ × ĥ shape, batched by powers of
//! λ: 0 = Σ eq(x‖y, r)·Z(x)·Σ_i λ^i·T_i(x‖y), Z = 1 on the rows x ≥ start.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{eq_eval, prefix_mask};
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::proof::EmptyRowsProof;

/// eq·Z·T.
pub const DEGREE: u32 = 3;

/// `padding.empty_rows` unless the proof is present exactly when a table is committed.
pub fn expect_empty_rows(proof: @Option<EmptyRowsProof>, needed: bool) {
    assert(proof.is_some() == needed, 'padding.empty_rows');
}

/// `padding.empty_rows` unless the sum-check of `count` tables ends at
/// eq(p, r)·Z(p_x)·Σ_i λ^i·T_i(p), Z(p_x) = 1 − (mask of the first `start` rows)(p_x), in
/// O(log l). Returns p.
#[inline(never)]
pub fn verify_empty_rows(
    proof: @EmptyRowsProof,
    count: u32,
    start: u32,
    row_vars: u32,
    col_vars: u32,
    ref channel: Poseidon252Channel,
) -> Span<QM31> {
    let values = proof.values.span();
    assert(values.len() == count, 'padding.empty_rows');
    let n = row_vars + col_vars;
    let r = channel.draw_secure_felts(n).span();
    let lam = channel.draw_secure_felt();
    let (point, final) = verify_sumcheck(
        QM31Trait::zero(), rounds(proof.sumcheck.rounds), n, DEGREE, ref channel,
    );
    channel.mix_felts(values);
    let empty = QM31Trait::one() - prefix_mask(point.slice(0, row_vars), start);
    let mut total = QM31Trait::zero();
    let mut power = QM31Trait::one();
    for value in values {
        total = total + power * *value;
        power = power * lam;
    }
    assert(final == eq_eval(r, point) * empty * total, 'padding.empty_rows');
    point
}
