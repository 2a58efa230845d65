//! Multilinear extensions over the boolean hypercube (mirror of prover/mle.py).
//!
//! A table is indexed row-major and its variables are read most-significant-bit first: the
//! first variable selects the top or bottom half.

use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait, UnreducedQM31, UnreducedQM31Trait};

const SHIFT_128: felt252 = 0x100000000000000000000000000000000;
/// ½ in M31: (p + 1)/2.
const HALF_POINT: u32 = 0x40000000;

/// ½, the point at which an MLE variable averages its two halves (pool's row sums, embed's
/// coefficients for tables of fewer variables).
pub fn half() -> QM31 {
    QM31Trait::one().scale(M31Trait::new(HALF_POINT))
}

/// eq(a, b) = Π (a_i b_i + (1 − a_i)(1 − b_i)).
pub fn eq_eval(a: Span<QM31>, b: Span<QM31>) -> QM31 {
    let mut acc = QM31Trait::one();
    let mut i = 0;
    for x in a {
        acc = acc * eq_factor(*x, *b[i]);
        i += 1;
    }
    acc
}

/// eq of one coordinate, xy + (1 − x)(1 − y) = 2xy − x − y + 1: one product, reduced once.
pub fn eq_factor(x: QM31, y: QM31) -> QM31 {
    let xy = x.mul_unreduced(y);
    let one: UnreducedQM31 = QM31Trait::one().into();
    (xy + xy + one).sub_reduced(x).sub_reduced(y).reduce()
}

/// log2(next_pow2(n)): the number of variables of a dimension of size `n` once zero-padded
/// (up to 32 for n ≥ 2^31: counted in u64, so a committed tensor's huge dim cannot overflow it).
pub fn log2_padded(n: u32) -> u32 {
    let mut log = 0;
    let mut size: u64 = 1;
    let n: u64 = n.into();
    while size < n {
        size *= 2;
        log += 1;
    }
    log
}


/// Index v as a point of {0,1}^n; eq(·, hypercube_point(v, n)) is one-hot at v.
pub fn hypercube_point(v: u32, n: u32) -> Span<QM31> {
    let mut point = array![];
    for bit in binary(v, n) {
        point.append(if *bit {
            QM31Trait::one()
        } else {
            QM31Trait::zero()
        });
    }
    point.span()
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
/// Nothing is reduced per entry: a row sum is accumulated in two-lane felts (`Lanes`) and
/// reduced once per row; the weighted rows are summed unreduced and reduced once at the end.
pub fn evaluate_matrix(
    values: Span<felt252>, cols: u32, eq_rows: Span<QM31>, eq_cols: Span<QM31>,
) -> QM31 {
    let mut col_lanes = array![];
    for e in eq_cols.slice(0, cols) {
        col_lanes.append(to_lanes(*e));
    }
    let col_lanes = col_lanes.span();
    let mut total = UnreducedQM31Trait::zero();
    let mut values = values;
    let mut eq_rows = eq_rows;
    while !values.is_empty() {
        let row_sum = dot(values.slice(0, cols), col_lanes);
        values = values.slice(cols, values.len() - cols);
        let weight = *eq_rows.pop_front().unwrap();
        total = total + from_lanes(row_sum).mul_unreduced(weight);
    }
    total.reduce()
}

/// sum_j row[j] · lanes[j], unreduced. Eight entries per iteration: the loop's own cost (gas
/// withdrawal, the spans and sums carried from one iteration to the next) is paid per chunk.
fn dot(row: Span<felt252>, lanes: Span<Lanes>) -> Lanes {
    let (mut row, mut lanes) = (row, lanes);
    let (mut ab, mut cd) = (0, 0);
    while let Some(chunk) = row.multi_pop_front::<8>() {
        let [v0, v1, v2, v3, v4, v5, v6, v7] = chunk.unbox();
        let [e0, e1, e2, e3, e4, e5, e6, e7] = lanes.multi_pop_front::<8>().unwrap().unbox();
        ab += v0 * e0.ab + v1 * e1.ab + v2 * e2.ab + v3 * e3.ab + v4 * e4.ab + v5 * e5.ab
            + v6 * e6.ab + v7 * e7.ab;
        cd += v0 * e0.cd + v1 * e1.cd + v2 * e2.cd + v3 * e3.cd + v4 * e4.cd + v5 * e5.cd
            + v6 * e6.cd + v7 * e7.cd;
    }
    while let Some(v) = row.pop_front() {
        let e = *lanes.pop_front().unwrap();
        ab += *v * e.ab;
        cd += *v * e.cd;
    }
    Lanes { ab, cd }
}

/// A QM31 (a, b, c, d) as two felts, a + b·2^128 and c + d·2^128, so one felt product by a base
/// value multiplies two coordinates. A lane product is < p^2 < 2^62; a row of at most 2^20
/// of them stays < 2^82 per lane, so the low lane never spills into the high one and the
/// high one (< 2^210) never wraps.
#[derive(Copy, Drop)]
struct Lanes {
    ab: felt252,
    cd: felt252,
}

fn to_lanes(x: QM31) -> Lanes {
    let a: felt252 = x.a.into();
    let c: felt252 = x.c.into();
    Lanes { ab: a + x.b.into() * SHIFT_128, cd: c + x.d.into() * SHIFT_128 }
}

/// Splits each lane felt into its u128 halves and reduces each coordinate mod p.
fn from_lanes(x: Lanes) -> QM31 {
    let ab: u256 = x.ab.into();
    let cd: u256 = x.cd.into();
    QM31 {
        a: M31Trait::reduce_u128(ab.low),
        b: M31Trait::reduce_u128(ab.high),
        c: M31Trait::reduce_u128(cd.low),
        d: M31Trait::reduce_u128(cd.high),
    }
}

/// The n-bit expansion of v, MSB first (v < 2^n): the variable order of every MLE.
pub fn binary(v: u32, n: u32) -> Span<bool> {
    let mut lsb_first = array![];
    let mut rest = v;
    for _ in 0..n {
        lsb_first.append(rest % 2 == 1);
        rest /= 2;
    }
    let mut bits = array![];
    let mut lsb_first = lsb_first.span();
    while let Some(bit) = lsb_first.pop_back() {
        bits.append(*bit);
    }
    bits.span()
}

/// Σ_{i<s} eq(point, i): the MLE of the mask of the first s of 2^n indices, O(n). i < s
/// exactly when, at the first bit where they differ (MSB first), s has a 1 and i a 0; the
/// bits after it are free and their eq factors sum to 1.
pub fn prefix_mask(point: Span<QM31>, s: u32) -> QM31 {
    let one = QM31Trait::one();
    if log2_padded(s + 1) > point.len() {
        return one; // s ≥ 2^n
    }
    let mut total = QM31Trait::zero();
    let mut prefix = one; // Π eq(point_k, s_k) over the bits before this one
    let mut i = 0;
    for bit in binary(s, point.len()) {
        let r = *point[i];
        if *bit {
            total = total + prefix * (one - r);
            prefix = prefix * r;
        } else {
            prefix = prefix * (one - r);
        }
        i += 1;
    }
    total
}
