//! No-wrap bound of a public product (mirror of prover/ranges.py `product_bound`;
//! docs/layers/matmul.md, "Over the integers"). A sum-check proves C ≡ A·B (mod p) entry by
//! entry; C = A·B over the integers once every |Σ_l A_il·B_lj| ≤ (p−1)/2, which
//!
//!     min(β, ⌈√(max_i ‖A_i·‖₂² · max_j ‖B_·j‖₂²)⌉) ≤ (p−1)/2,
//!     β = min(max_i Σ_l |A_il| · max|B|,  max|A| · max_j Σ_l |B_lj|)
//!
//! guarantees (`product_within`, `product_rows_within`). Values are canonical M31 read as
//! signed integers (x > (p−1)/2 means x − p), so every |x| ≤ (p−1)/2 and Python's per-operand
//! magnitude check cannot fail on calldata.
//!
//! Gas: a comparison per value costs as much as the rest of the verifier's work on it, so a
//! sufficient condition that needs none is tried first (`row_norm_bound`); it accepts honest
//! statements of small entries (int8 operands whenever k·n < 2^16). Only when it fails is β
//! decided exactly, as Python does, so both sides accept exactly the same statements
//! (docs/cairo-verifier.md, "`statement.range`").

use crate::fields::m31::P_FELT;

/// (p − 1)/2, the largest magnitude of a signed M31 value: the bound every `statement.range`
/// check compares with.
pub const HALF: u128 = 0x3fffffff;
const P: u128 = 0x7fffffff;
/// p − (p−1)/2 = 2^30, the least p − |x| can be.
const TWO_30: u128 = 0x40000000;

/// Whether product_bound(a, b) ≤ `limit` (≤ (p−1)/2) with the Euclidean term, as a walk
/// layer's product: min(β, ⌈√(ρ·κ)⌉) ≤ limit, ρ = max_i Σ_l A_il², κ = max_j Σ_l B_lj². No root
/// is taken: that holds iff β ≤ limit or ρ·κ ≤ limit², and ρ·κ is computed only when β fails.
pub fn product_within(a: Span<felt252>, k: u32, b: Span<felt252>, n: u32, limit: u128) -> bool {
    if holder_within(a, k, b, n, limit) {
        return true;
    }
    let rho = max_row_sum::<Square>(a, k);
    rho == 0 || max_col_sum::<Square>(b, n) <= limit * limit / rho
}

/// Whether β ≤ `limit` (≤ (p−1)/2).
fn holder_within(a: Span<felt252>, k: u32, b: Span<felt252>, n: u32, limit: u128) -> bool {
    // β ≤ max_i Σ_l |A_il| · max|B| and max|B| ≤ B's largest row sum; each bound is < 2^51.
    if row_norm_bound(a, k) * row_norm_bound(b, n) <= limit {
        return true;
    }
    // Exactly: β ≤ limit iff one of its terms is. The first needs A's row sums and then only
    // whether every |B_lj| ≤ limit / max_i Σ_l |A_il|; max|A| and B's column sums are
    // computed when it exceeds the bound.
    let row_norm = max_row_sum::<Abs>(a, k);
    if row_norm == 0 || within(b, limit / row_norm) {
        return true;
    }
    max_magnitude(a) * max_col_sum::<Abs>(b, n) <= limit
}

/// Whether Python's `product_bound(a, b)` with its Euclidean term, for one product A·B of
/// inner dimension k, is ≤ (p−1)/2: A given by its rows and B by its columns (`bt`, the rows
/// of Bᵀ), each row of `k` values. With ‖·‖ over rows of A and of Bᵀ, that bound is
///
///     min(max‖A_i‖₁·max|B|,  max|A|·max‖B_j‖₁,  ⌈(max‖A_i‖₂² · max‖B_j‖₂²)^½⌉),
///
/// and ⌈√x⌉ ≤ (p−1)/2 iff x ≤ ((p−1)/2)², so no root is taken. Exact, with a comparison per
/// value: for statements the cheap bounds (`row_norm_bound`) leave undecided.
pub fn product_rows_within(a: Span<felt252>, bt: Span<felt252>, k: u32) -> bool {
    // Each factor is < 2^50 (row sums) or < 2^30 (entries): the products fit a u128.
    if max_row_sum::<Abs>(a, k) * max_magnitude(bt) <= HALF
        || max_magnitude(a) * max_row_sum::<Abs>(bt, k) <= HALF {
        return true;
    }
    let (rows, cols, half): (u256, u256, u256) = (
        max_row_sum::<Square>(a, k).into(), max_row_sum::<Square>(bt, k).into(), HALF.into(),
    );
    rows * cols <= half * half
}

/// d(x) = x·(p − x) = |x|·(p − |x|) for a canonical x (the same for x and p − x): no sign is
/// needed. It is < 2^60 and increases with |x| on [0, (p−1)/2].
#[inline(always)]
fn spread(x: felt252) -> felt252 {
    x * (P_FELT - x)
}

/// An upper bound on max_i Σ_j |x_ij| over the rows of `cols` values, from the row sums
/// D_i = Σ_j d(x_ij) alone (felt252 sums that cannot wrap: < 2^20 · 2^60). In a row, every
/// |x| ≤ d(x) / 2^30 ≤ D / 2^30 =: τ, so p − |x| ≥ p − τ and Σ_j |x_ij| = Σ_j d(x_ij) /
/// (p − |x_ij|) ≤ D / (p − τ): the row sum to within a factor 1 + τ/p, close for small entries.
/// The bound grows with D, so it is taken once, of the largest D_i.
pub fn row_norm_bound(values: Span<felt252>, cols: u32) -> u128 {
    let mut values = values;
    let mut largest = 0;
    while !values.is_empty() {
        let mut row = values.slice(0, cols);
        values = values.slice(cols, values.len() - cols);
        let mut sum = 0;
        while let Some(chunk) = row.multi_pop_front::<8>() {
            let [v0, v1, v2, v3, v4, v5, v6, v7] = chunk.unbox();
            sum += spread(v0) + spread(v1) + spread(v2) + spread(v3) + spread(v4) + spread(v5)
                + spread(v6) + spread(v7);
        }
        for v in row {
            sum += spread(*v);
        }
        largest = core::cmp::max(largest, sum.try_into().unwrap());
    }
    largest / (P - core::cmp::min(largest / TWO_30, HALF))
}

/// One side of a product as Python's `product_bound` reads it: A by its rows, B by its columns
/// — the largest Σ|x| of one, max|x|, and the largest Σx² of one.
#[derive(Copy, Drop)]
pub struct Lines {
    pub abs: u128,
    pub max: u128,
    pub sq: u128,
}

/// A's rows of `cols` values, from the values.
pub fn row_lines(values: Span<felt252>, cols: u32) -> Lines {
    Lines {
        abs: max_row_sum::<Abs>(values, cols),
        max: max_magnitude(values),
        sq: max_row_sum::<Square>(values, cols),
    }
}

/// Python's `product_bound(a, b)` for one product from its sides' lines: min(max‖A_i‖₁·max|B|,
/// max|A|·max‖B_j‖₁, ⌈(max‖A_i‖₂²·max‖B_j‖₂²)^½⌉) — for operands known by bounds alone (a
/// hidden tensor, a declared weight), where the values' cheaper test (`product_within`) has
/// nothing to read. Every term is below 2^100 for lines of u32 many entries within (p−1)/2.
pub fn product_bound(a: Lines, b: Lines) -> u128 {
    let holder = core::cmp::min(a.abs * b.max, a.max * b.abs);
    let squares: u256 = a.sq.into() * b.sq.into();
    core::cmp::min(holder, ceil_sqrt(squares))
}

/// ⌈√n⌉ for n ≤ (2^128 − 1)² (here: products of two values below 2^100).
pub fn ceil_sqrt(n: u256) -> u128 {
    let root: u128 = core::num::traits::Sqrt::sqrt(n);
    let square: u256 = root.into() * root.into();
    if square == n {
        root
    } else {
        root + 1
    }
}

/// Σx² of a vector.
pub fn square_sum(values: Span<felt252>) -> u128 {
    max_row_sum::<Square>(values, values.len())
}

/// Whether a relation's bound (None: the relation is skipped) is beyond (p−1)/2.
pub fn exceeds_half(bound: Option<u128>) -> bool {
    match bound {
        Some(b) => b > HALF,
        None => false,
    }
}

/// |x| for a canonical value x read as a signed integer.
#[inline(always)]
fn magnitude(x: felt252) -> felt252 {
    let value: u128 = x.try_into().unwrap();
    if value > HALF {
        P_FELT - x
    } else {
        x
    }
}

/// What a row or column sum adds up per value: |x| (Hölder's terms) or x² (the Euclidean one).
trait Measure<M> {
    fn measure(x: felt252) -> felt252;
}

#[derive(Drop)]
struct Abs {}

#[derive(Drop)]
struct Square {}

impl AbsMeasure of Measure<Abs> {
    #[inline(always)]
    fn measure(x: felt252) -> felt252 {
        magnitude(x)
    }
}

impl SquareMeasure of Measure<Square> {
    #[inline(always)]
    fn measure(x: felt252) -> felt252 {
        let m = magnitude(x);
        m * m
    }
}

/// max_i Σ_j M(x_ij) over the rows of `cols` values (a row sum of squares is < 2^80: felt252
/// sums, one conversion per row). Eight values per iteration, as `mle::dot`.
fn max_row_sum<M, +Measure<M>>(values: Span<felt252>, cols: u32) -> u128 {
    let mut values = values;
    let mut best = 0;
    while !values.is_empty() {
        let mut row = values.slice(0, cols);
        values = values.slice(cols, values.len() - cols);
        let mut sum = 0;
        while let Some(chunk) = row.multi_pop_front::<8>() {
            let [v0, v1, v2, v3, v4, v5, v6, v7] = chunk.unbox();
            sum += Measure::<M>::measure(v0) + Measure::<M>::measure(v1) + Measure::<M>::measure(v2)
                + Measure::<M>::measure(v3) + Measure::<M>::measure(v4) + Measure::<M>::measure(v5)
                + Measure::<M>::measure(v6) + Measure::<M>::measure(v7);
        }
        for v in row {
            sum += Measure::<M>::measure(*v);
        }
        best = core::cmp::max(best, sum.try_into().unwrap());
    }
    best
}

/// Whether every |x| ≤ t (t ≤ (p−1)/2), with one range check per value: |x| ≤ t iff
/// d(x) ≤ d(t), and d(t) − d(x) is a felt252 below 2^128 exactly when it is ≥ 0 (both are
/// < 2^60; a negative difference is a felt252 near p_stark).
fn within(values: Span<felt252>, t: u128) -> bool {
    let limit = spread(t.into());
    let mut values = values;
    while let Some(chunk) = values.multi_pop_front::<8>() {
        let [v0, v1, v2, v3, v4, v5, v6, v7] = chunk.unbox();
        if !(below(v0, limit) && below(v1, limit) && below(v2, limit) && below(v3, limit)
            && below(v4, limit) && below(v5, limit) && below(v6, limit) && below(v7, limit)) {
            return false;
        }
    }
    for v in values {
        if !below(*v, limit) {
            return false;
        }
    }
    true
}

/// d(x) ≤ limit.
#[inline(always)]
fn below(x: felt252, limit: felt252) -> bool {
    let room: Option<u128> = (limit - spread(x)).try_into();
    room.is_some()
}

/// max |x|.
pub fn max_magnitude(values: Span<felt252>) -> u128 {
    let mut best = 0;
    for v in values {
        best = core::cmp::max(best, magnitude(*v).try_into().unwrap());
    }
    best
}

/// max_j Σ_i M(x_ij) over the columns of a matrix of `cols` columns: the column sums (each
/// < 2^80) carried row to row.
fn max_col_sum<M, +Measure<M>>(values: Span<felt252>, cols: u32) -> u128 {
    let mut sums = array![];
    for _ in 0..cols {
        sums.append(0);
    }
    let mut sums = sums.span();
    let mut values = values;
    while !values.is_empty() {
        let mut next = array![];
        for v in values.slice(0, cols) {
            next.append(*sums.pop_front().unwrap() + Measure::<M>::measure(*v));
        }
        values = values.slice(cols, values.len() - cols);
        sums = next.span();
    }
    let mut best = 0;
    for sum in sums {
        best = core::cmp::max(best, (*sum).try_into().unwrap());
    }
    best
}

/// max_j Σ_i |x_ij| over the columns of a matrix of `cols` columns (pool's bound).
pub fn max_col_abs_sum(values: Span<felt252>, cols: u32) -> u128 {
    max_col_sum::<Abs>(values, cols)
}
