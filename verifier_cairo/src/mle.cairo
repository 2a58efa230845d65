//! Multilinear extensions over the boolean hypercube (mirror of prover/mle.py).
//!
//! A table is indexed row-major and its variables are read most-significant-bit first: the
//! first variable selects the top or bottom half.

use crate::fields::qm31::{QM31, QM31Trait, UnreducedQM31Trait};

/// log2(next_pow2(n)): the number of variables of a dimension of size `n` once zero-padded.
pub fn log2_padded(n: u32) -> u32 {
    let mut log = 0;
    let mut size = 1;
    while size < n {
        size *= 2;
        log += 1;
    }
    log
}

/// eq(point, x) for every x in {0,1}^n, x read MSB-first: 2^n entries. Each variable splits
/// every entry t into (t - t·r, t·r), so the first variable ends up as the top index bit.
pub fn eq_table(point: Span<QM31>) -> Span<QM31> {
    let mut table = array![QM31Trait::one()].span();
    for r in point {
        let mut next = array![];
        for t in table {
            let hi = *t * *r;
            next.append(*t - hi);
            next.append(hi);
        }
        table = next.span();
    }
    table
}

/// MLE of a zero-padded matrix of canonical M31 values (row-major, `values.len() / cols` rows
/// of `cols`) at the point whose eq tables are `eq_rows` and `eq_cols`:
/// sum_i eq_rows[i] · (sum_j values[i][j] · eq_cols[j]). Padding entries are zero, so only the
/// unpadded values are visited.
///
/// Each row sum is accumulated unreduced (base × QM31 products, < 2^62 each, at most 2^20 per
/// row) and reduced once; the row weights are summed unreduced too and reduced at the end.
pub fn evaluate_matrix(
    values: Span<felt252>, cols: u32, eq_rows: Span<QM31>, eq_cols: Span<QM31>,
) -> QM31 {
    let mut total = UnreducedQM31Trait::zero();
    let mut values = values;
    let mut eq_rows = eq_rows;
    while !values.is_empty() {
        let weight = *eq_rows.pop_front().unwrap();
        let mut row_sum = UnreducedQM31Trait::zero();
        let mut row = values.slice(0, cols);
        values = values.slice(cols, values.len() - cols);
        let mut eq_cols = eq_cols;
        while let Some(v) = row.pop_front() {
            row_sum = row_sum + (*eq_cols.pop_front().unwrap()).mul_base_unreduced(*v);
        }
        total = total + row_sum.reduce().mul_unreduced(weight);
    }
    total.reduce()
}
