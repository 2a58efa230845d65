//! Zero entries of committed tables outside a box (mirror of prover/padding.py): one degree-3
//! sum-check shows every entry outside [0, b_1) × … × [0, b_k) is zero in every table of one
//! padded shape, batched by powers of λ: 0 = Σ eq(x, r)·Z(x)·Σ_i λ^i·T_i(x), Z = 1 outside
//! the box. The rows from `start` on are the box (start, ĥ) of an l̂ × ĥ table.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{eq_eval, prefix_mask};
use crate::pcs::queries::pow2;
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
    let (box, dim_vars) = (array![start, pow2(col_vars)], array![row_vars, col_vars]);
    verify_outside_zero(proof, count, box.span(), dim_vars.span(), ref channel)
}

/// `padding.empty_rows` unless the sum-check of `count` tables (dimension d on `dim_vars[d]`
/// variables) ends at eq(p, r)·Z(p)·Σ_i λ^i·T_i(p), Z(p) = 1 − Π_d (mask of the first b_d
/// indices)(p_d), in O(n). Returns p.
#[inline(never)]
pub fn verify_outside_zero(
    proof: @EmptyRowsProof,
    count: u32,
    box: Span<u32>,
    dim_vars: Span<u32>,
    ref channel: Poseidon252Channel,
) -> Span<QM31> {
    let values = proof.values.span();
    assert(values.len() == count, 'padding.empty_rows');
    let mut n = 0;
    for k in dim_vars {
        n += *k;
    }
    let r = channel.draw_secure_felts(n).span();
    let lam = channel.draw_secure_felt();
    let (point, final) = verify_sumcheck(
        QM31Trait::zero(), rounds(proof.sumcheck.rounds), n, DEGREE, ref channel,
    );
    channel.mix_felts(values);
    let (mut inside, mut at) = (QM31Trait::one(), 0);
    let mut d = 0;
    for k in dim_vars {
        inside = inside * prefix_mask(point.slice(at, *k), *box[d]);
        at += *k;
        d += 1;
    }
    let empty = QM31Trait::one() - inside;
    let mut total = QM31Trait::zero();
    let mut power = QM31Trait::one();
    for value in values {
        total = total + power * *value;
        power = power * lam;
    }
    assert(final == eq_eval(r, point) * empty * total, 'padding.empty_rows');
    point
}
