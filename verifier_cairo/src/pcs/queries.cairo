//! Which leaves the queries open, for the polynomials' trees and the folding layers (mirror of
//! prover/pcs/queries.py). Everything follows from the query positions and public sizes.
//!
//! Python keeps one row per query, in draw order; here the positions are sorted and
//! deduplicated once, so every tree's leaf list is `shift_distinct(queries, ·)` (a shift keeps
//! the order) and a query drawn twice is checked once, with the same verdict.

use super::params::{PcsParams, fold_groups, poly_log_leaf};
use super::proof::PolyStatement;

/// The folding structure of one batch: groups of levels, where each polynomial enters.
/// Polynomial j (n_j variables) is added at level t_j = n − n_j, inside group (s, e] with
/// s < t_j ≤ e (or the first group when t_j = 0).
#[derive(Copy, Drop)]
pub struct BatchLayout {
    pub n_vars: u32,
    pub groups: Span<(u32, u32)>,
    pub levels: Span<u32>,
    pub poly_groups: Span<u32>,
}

#[generate_trait]
pub impl BatchLayoutImpl of BatchLayoutTrait {
    /// The layout of a statement's polynomials.
    fn of_statement(statement: Span<PolyStatement>, log_arity: u32) -> BatchLayout {
        let mut poly_vars = array![];
        for poly in statement {
            poly_vars.append(*poly.n_vars);
        }
        Self::new(poly_vars.span(), log_arity)
    }

    fn new(poly_vars: Span<u32>, log_arity: u32) -> BatchLayout {
        let mut n = 0;
        for n_j in poly_vars {
            n = core::cmp::max(n, *n_j);
        }
        let groups = fold_groups(n, log_arity);
        let mut levels = array![];
        let mut poly_groups = array![];
        for n_j in poly_vars {
            let t = n - *n_j;
            levels.append(t);
            let mut g = 0;
            for (s, e) in groups {
                if (*s < t && t <= *e) || (t == 0 && *s == 0) {
                    break;
                }
                g += 1;
            }
            poly_groups.append(g);
        }
        BatchLayout { n_vars: n, groups, levels: levels.span(), poly_groups: poly_groups.span() }
    }

    /// The polynomials added to the word at level t.
    fn entering(self: @BatchLayout, t: u32) -> Span<u32> {
        indices_equal(*self.levels, t)
    }

    /// The polynomials added inside group g, in order: the trees the group opens besides its
    /// layer.
    fn group_polys(self: @BatchLayout, g: u32) -> Span<u32> {
        indices_equal(*self.poly_groups, g)
    }

    /// The trees group g opens: its layer (after the first group), then its polynomials. A
    /// session may stop after any of them.
    fn group_trees(self: @BatchLayout, g: u32) -> u32 {
        self.group_polys(g).len() + if g > 0 {
            1
        } else {
            0
        }
    }

    /// Polynomial j's leaves hold 2^log_leaf values; query q opens leaf q >> (t_j + log_leaf).
    fn poly_leaf_shift(self: @BatchLayout, j: u32, params: @PcsParams) -> u32 {
        let t = *(*self.levels)[j];
        t + poly_log_leaf(*self.n_vars - t, params)
    }
}

fn indices_equal(values: Span<u32>, target: u32) -> Span<u32> {
    let mut out = array![];
    let mut j = 0;
    for v in values {
        if *v == target {
            out.append(j);
        }
        j += 1;
    }
    out.span()
}

/// Sorted, without repeats: a bottom-up merge sort (runs of 1, 2, 4, … merged pairwise), then
/// one pass dropping repeats.
pub fn sorted_distinct(values: Span<u32>) -> Span<u32> {
    let mut sorted = values;
    let mut run = 1;
    while run < sorted.len() {
        let mut merged = array![];
        let mut rest = sorted;
        while !rest.is_empty() {
            let left_len = core::cmp::min(run, rest.len());
            let mut left = rest.slice(0, left_len);
            rest = rest.slice(left_len, rest.len() - left_len);
            let right_len = core::cmp::min(run, rest.len());
            let mut right = rest.slice(0, right_len);
            rest = rest.slice(right_len, rest.len() - right_len);
            merge_into(ref merged, left, right);
        }
        sorted = merged.span();
        run *= 2;
    }
    let mut out = array![];
    let mut last: Option<u32> = None;
    for v in sorted {
        if last != Some(*v) {
            out.append(*v);
            last = Some(*v);
        }
    }
    out.span()
}

/// Appends the merge of two sorted spans.
fn merge_into(ref out: Array<u32>, left: Span<u32>, right: Span<u32>) {
    let mut left = left;
    let mut right = right;
    while let Some(l) = left.get(0) {
        match right.get(0) {
            Some(r) => {
                if *l.unbox() <= *r.unbox() {
                    out.append(*left.pop_front().unwrap());
                } else {
                    out.append(*right.pop_front().unwrap());
                }
            },
            None => { break; },
        }
    }
    out.append_span(left);
    out.append_span(right);
}

/// The distinct values v >> shift of sorted values, sorted (a shift keeps the order).
pub fn shift_distinct(sorted: Span<u32>, shift: u32) -> Span<u32> {
    let divisor: NonZero<u32> = pow2(shift).try_into().unwrap();
    let mut out = array![];
    let mut last: Option<u32> = None;
    for v in sorted {
        let (shifted, _) = DivRem::div_rem(*v, divisor);
        if last != Some(shifted) {
            out.append(shifted);
            last = Some(shifted);
        }
    }
    out.span()
}

/// For sorted positions, the row of each one's leaf (position >> log_leaf) among the sorted
/// distinct `leaves` (Python `LeafMap.rows`).
pub fn leaf_rows(leaves: Span<u32>, positions: Span<u32>, log_leaf: u32) -> Span<u32> {
    let divisor: NonZero<u32> = pow2(log_leaf).try_into().unwrap();
    let mut rows = array![];
    let mut row = 0;
    for position in positions {
        let (leaf, _) = DivRem::div_rem(*position, divisor);
        while *leaves[row] != leaf {
            row += 1;
        }
        rows.append(row);
    }
    rows.span()
}

const POW2: [u32; 32] = [
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000,
    0x4000, 0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000, 0x800000,
    0x1000000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000, 0x80000000,
];

/// 2^k for k < 32.
pub fn pow2(k: u32) -> u32 {
    *POW2.span()[k]
}
