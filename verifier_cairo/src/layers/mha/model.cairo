//! The statement check (mirror of prover/layers/mha/model.py `check`): dims (s, h, m, causal),
//! the tensors' shapes, and the no-wrap bounds of its two relations (`RELATIONS`).

use crate::fields::qm31::QM31;
use crate::mle::log2_padded;
use crate::pcs::queries::pow2;
use crate::ranges::{HALF, product_rows_within, row_norm_bound};
use crate::walk::statement::{PublicStatement, expect_shapes, tensor};

/// s tokens, h heads of dimension m; the padded sizes' variable counts follow.
#[derive(Copy, Drop)]
pub struct Dims {
    pub s: u32,
    pub h: u32,
    pub m: u32,
    pub causal: bool,
}

#[generate_trait]
pub impl DimsImpl of DimsTrait {
    /// The dims of a statement `check` accepted.
    fn from_statement(st: @PublicStatement) -> Dims {
        let dims = *st.dims;
        Dims { s: *dims[0], h: *dims[1], m: *dims[2], causal: *dims[3] == 1 }
    }

    fn s_vars(self: @Dims) -> u32 {
        log2_padded(*self.s)
    }

    fn h_vars(self: @Dims) -> u32 {
        log2_padded(*self.h)
    }

    fn m_vars(self: @Dims) -> u32 {
        log2_padded(*self.m)
    }

    fn d_vars(self: @Dims) -> u32 {
        log2_padded(*self.h * *self.m)
    }

    /// (head, query token, key token) coordinates of a point on an ĥ × ŝ × ŝ tensor.
    fn split_scores(self: @Dims, point: Span<QM31>) -> (Span<QM31>, Span<QM31>, Span<QM31>) {
        let (h, s) = (self.h_vars(), self.s_vars());
        (point.slice(0, h), point.slice(h, s), point.slice(h + s, s))
    }
}

/// dims (s, h, m, causal) with s, h, m ≥ 1 and causal ∈ {0, 1}; inputs a: h × s × s and k, q,
/// v: s × h·m; outputs o: ŝ × d and s_m: ĥ × ŝ × ŝ; no weights (`statement.shape`); then
/// `statement.range` unless both relations hold over the integers.
pub fn check(st: @PublicStatement) {
    let dims = *st.dims;
    assert(dims.len() == 4, 'statement.shape');
    let (s, h, m, causal) = (*dims[0], *dims[1], *dims[2], *dims[3]);
    assert(s >= 1 && h >= 1 && m >= 1 && causal <= 1, 'statement.shape');
    // h·m beyond a u32 is no shape: the same refusal as Python's comparison.
    let wide_h: u64 = h.into();
    let hm: u32 = match (wide_h * m.into()).try_into() {
        Some(hm) => hm,
        None => core::panic_with_felt252('statement.shape'),
    };
    let qkv = array![s, hm].span();
    expect_shapes(
        *st.inputs,
        array!['a', 'k', 'q', 'v'].span(),
        array![array![h, s, s].span(), qkv, qkv, qkv].span(),
    );
    // The inputs were read, so s, h and h·m are small: the padded sizes below cannot overflow.
    let d = DimsTrait::from_statement(st);
    let s_hat = pow2(d.s_vars());
    expect_shapes(
        *st.outputs,
        array!['o', 's_m'].span(),
        array![array![s_hat, pow2(d.d_vars())].span(), array![pow2(d.h_vars()), s_hat, s_hat].span()]
            .span(),
    );
    expect_shapes(*st.weights, array![].span(), array![].span());
    check_ranges(st, d);
}

/// `RELATIONS`: per head, |Q_i·K_iᵀ| and |A_i·V_i| ≤ (p−1)/2 by Python's `product_bound`
/// (S_M's mask entries are MASK itself, |MASK| = 2^29 < (p−1)/2: never a wrap). First a
/// bound with no comparison per value over all heads at once — a row of head i's Q_i is a
/// row of Q read as (s·h) × m, A_i's rows are A's, and max|V_i| is at most a row sum of V
/// read so — then, only if it fails, each head exactly (`product_rows_within`).
fn check_ranges(st: @PublicStatement, d: Dims) {
    let (a, k, q, v) = (
        tensor(*st.inputs, 'a'), tensor(*st.inputs, 'k'), tensor(*st.inputs, 'q'),
        tensor(*st.inputs, 'v'),
    );
    // A relation reading a committed operand is skipped: it holds mod p only.
    let (qk, av) = (
        q.commitment.is_none() && k.commitment.is_none(),
        a.commitment.is_none() && v.commitment.is_none(),
    );
    let (a, k, q, v) = (a.values, k.values, q.values, v.values);
    // s_m = mask(q·kᵀ) per head: Q_i·K_iᵀ of inner dimension m, K_iᵀ's columns K_i's rows.
    if qk && row_norm_bound(q, d.m) * row_norm_bound(k, d.m) > HALF {
        for i in 0..d.h {
            let within = product_rows_within(head_rows(q, d, i), head_rows(k, d, i), d.m);
            assert(within, 'statement.range');
        }
    }
    // o = a·v per head: A_i·V_i of inner dimension s.
    if av && row_norm_bound(a, d.s) * row_norm_bound(v, d.m) > HALF {
        for i in 0..d.h {
            let a_i = a.slice(i * d.s * d.s, d.s * d.s);
            assert(product_rows_within(a_i, head_columns(v, d, i), d.s), 'statement.range');
        }
    }
}

/// Head i's columns of an s × h·m matrix, row by row (s × m).
fn head_rows(x: Span<felt252>, d: Dims, i: u32) -> Span<felt252> {
    let width = d.h * d.m;
    let mut out = array![];
    for t in 0..d.s {
        out.append_span(x.slice(t * width + i * d.m, d.m));
    }
    out.span()
}

/// Head i's columns of an s × h·m matrix, column by column (m × s: its transpose).
fn head_columns(x: Span<felt252>, d: Dims, i: u32) -> Span<felt252> {
    let width = d.h * d.m;
    let mut out = array![];
    for c in 0..d.m {
        for t in 0..d.s {
            out.append(*x[t * width + i * d.m + c]);
        }
    }
    out.span()
}
