//! The softmax proof's three lookup relations and its witness layout, on claimed values and
//! closed forms (mirror of the verifier's half of prover/softmax/relations.py).
//!
//! EXP: (e, live, y) ∈ {(i, b, b·T[i])}; LIMB: (lo, hi, live) ∈ {(l, h, [h = 0])};
//! NORM: n ∈ [0, 2^k_n). Instances, in this order: the three witness sides, then the three
//! tables (docs/layers/attn.md, "Protocol").
//!
//! The proof's column values are passed as Python's `ColumnValues.values()`, ten values in
//! the order below (`LO` … `TABLE_VALUE`): the list the verifier also mixes.

use crate::channels::base::Channel;
use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::layers::mha::model::{Dims, DimsTrait};
use crate::pcs::proof::Claim;
use crate::pcs::stack::{StackLayout, StackLayoutTrait, stack_claims};
use crate::walk::layer::ClaimsOn;
use super::params::{EXP_BITS, SoftmaxParams, SoftmaxParamsTrait};
use super::structured::{index_mle, is_zero_mle, valid_rows_mle};
use super::tables::exp_table_name;

/// The statement names the witness stacks softmax.0, softmax.1, …
pub const STACKS: felt252 = 'softmax';
/// The largest stack: 2^22 values, where WITNESS_PCS proves 98.2 bits.
pub const STACK_VARS: u32 = 22;

/// The indices of `ColumnValues.values()`: limbs, flag and Y at ρ; the row mean; the
/// multiplicities; T̃ at the EXP table's index point.
pub const LO: u32 = 0;
pub const E: u32 = 1;
pub const HI: u32 = 2;
pub const LIVE: u32 = 3;
pub const Y: u32 = 4;
pub const ROW_MEAN: u32 = 5;
pub const M_EXP: u32 = 6;
pub const M_LIMB: u32 = 7;
pub const M_NORM: u32 = 8;
pub const TABLE_VALUE: u32 = 9;
pub const N_COLUMN_VALUES: u32 = 10;

/// 1/2 in M31: (p + 1)/2 = 2^30.
const HALF: u32 = 0x40000000;

/// The entry columns, committed and opened at ρ in this order (Python `ENTRY_COLUMNS`).
pub fn entry_columns() -> Span<felt252> {
    array!['lo', 'e', 'hi', 'live', 'y'].span()
}

/// key(c0, c1, …) = α − c0 − β1·c1 − …: a tuple's LogUp denominator, the β's drawn
/// independently.
#[derive(Copy, Drop, PartialEq, Debug)]
pub struct Key {
    pub alpha: QM31,
    pub betas: Span<QM31>,
}

#[generate_trait]
pub impl KeyImpl of KeyTrait {
    /// α − first − Σ β_k·rest[k]; `rest` has one value per β.
    fn of_tuple(self: @Key, first: QM31, rest: Span<QM31>) -> QM31 {
        let alpha = *self.alpha;
        let mut acc = first;
        let mut k = 0;
        for beta in *self.betas {
            acc = acc + *rest[k] * *beta;
            k += 1;
        }
        alpha - acc
    }
}

#[derive(Copy, Drop, PartialEq, Debug)]
pub struct Relations {
    pub exp: Key,
    pub limb: Key,
    pub norm: Key,
}

#[generate_trait]
pub impl RelationsImpl of RelationsTrait {
    /// α_E, β_E1, β_E2, α_L, β_L1, β_L2, α_N, in that order (`draw_secure_felts(7)`).
    fn draw<C, +Drop<C>, +Channel<C>>(ref channel: C) -> Relations {
        let c = channel.draw_secure_felts(7).span();
        Relations {
            exp: Key { alpha: *c[0], betas: array![*c[1], *c[2]].span() },
            limb: Key { alpha: *c[3], betas: array![*c[4], *c[5]].span() },
            norm: Key { alpha: *c[6], betas: array![].span() },
        }
    }
}

/// Variables of each instance: entries (H + 2S) twice, (σ, row) for NORM, then the tables
/// (1 + 16, 14, k_n).
pub fn instance_vars(dims: @Dims, params: @SoftmaxParams) -> Span<u32> {
    let n = dims.h_vars() + 2 * dims.s_vars();
    let limb = params.lo_bits() + params.hi_bits();
    array![n, n, 1 + dims.h_vars() + dims.s_vars(), 1 + EXP_BITS, limb, *params.k_n].span()
}

/// The committed stacks: five entry columns, the row shifts z, three multiplicities, in
/// stacks of at most 2^STACK_VARS values; None when a column is larger (Python raises
/// ValueError, which the statement check refuses as `softmax.params`).
pub fn witness_layout(dims: @Dims, params: @SoftmaxParams) -> Option<StackLayout> {
    let n_vars = instance_vars(dims, params);
    let mut names = array![];
    let mut sizes = array![];
    for name in entry_columns() {
        names.append(*name);
        sizes.append(*n_vars[0]);
    }
    names.append_span(array!['z', 'm_exp', 'm_limb', 'm_norm'].span());
    let rows = dims.h_vars() + dims.s_vars();
    sizes.append_span(array![rows, *n_vars[3], *n_vars[4], *n_vars[5]].span());
    StackLayoutTrait::of_columns(names.span(), sizes.span(), STACK_VARS)
}

/// The tables' keys at their points (EXP, LIMB, NORM), in closed form but for T̃ (`table`,
/// opened from the fixed commitment): index MLEs, the bit b, and [h = 0].
pub fn table_keys_at(
    rel: @Relations, params: @SoftmaxParams, points: Span<Span<QM31>>, table: QM31,
) -> Span<QM31> {
    let (exp_point, limb_point, norm_point) = (*points[0], *points[1], *points[2]);
    let b = *exp_point[0];
    let e = exp_point.slice(1, exp_point.len() - 1);
    let hi_bits = params.hi_bits();
    let h = limb_point.slice(0, hi_bits);
    let low = limb_point.slice(hi_bits, limb_point.len() - hi_bits);
    array![
        rel.exp.of_tuple(index_mle(e), array![b, b * table].span()),
        rel.limb.of_tuple(index_mle(low), array![index_mle(h), is_zero_mle(h)].span()),
        rel.norm.of_tuple(index_mle(norm_point), array![].span()),
    ]
        .span()
}

/// ñ(σ, ρ') for n_0 = R − v·(2^θ − ε), n_1 = v·(2^θ + ε) − R over the rows, where
/// R̃(ρ') = 2^S·Ỹ(ρ', ½,…,½) (a row sum is ŝ times its mean) and ṽ the valid-row mask.
pub fn norm_at(dims: @Dims, params: @SoftmaxParams, point: Span<QM31>, row_mean: QM31) -> QM31 {
    let sigma = *point[0];
    let rows = point.slice(1, point.len() - 1);
    let v = valid_rows_mle(*dims.h, *dims.s, rows);
    let total = row_mean.scale(field_pow2(dims.s_vars()));
    let one = field_pow2(*params.theta);
    let eps = M31Trait::reduce_u128((*params.eps).into());
    let low = total - v.scale(one - eps);
    let high = v.scale(one + eps) - total;
    low + (high - low) * sigma
}

/// (ρ', ½,…,½): Y's MLE there is the mean of each row, ρ' the NORM point's row part.
pub fn row_mean_point(dims: @Dims, points: Span<Span<QM31>>) -> Span<QM31> {
    let norm_point = *points[2];
    let mut out = array![];
    out.append_span(norm_point.slice(1, norm_point.len() - 1));
    for _ in 0..dims.s_vars() {
        out.append(QM31Trait::new(HALF, 0, 0, 0));
    }
    out.span()
}

/// What the walk's witness opening proves, by stack and table: every column value at its
/// point, Y at the row-mean point and at A·Ṽ's point (`a_claim`), Z at the recomposition's
/// row point (the first H + S coordinates of `shift`'s), each multiplicity at its table's
/// point — as claims on the stacks softmax.0, … in stack order — then T̃ at the EXP table's
/// index coordinates, on 'softmax.exp.<θ>'. `points` are the six LogUp instances' leaf
/// points, `columns` the ten column values (`LO` … `TABLE_VALUE`). The layout must fit (the
/// statement check has refused parameters for which it does not).
pub fn opening_claims(
    dims: @Dims,
    params: @SoftmaxParams,
    points: Span<Span<QM31>>,
    columns: Span<QM31>,
    shift: Claim,
    a_claim: Claim,
) -> Span<ClaimsOn> {
    let rho = *points[0];
    let mut claims = array![];
    let mut k = 0;
    for name in entry_columns() {
        let at_rho = Claim { point: rho, value: *columns[k] };
        let on = if k == Y {
            let row_mean = Claim {
                point: row_mean_point(dims, points), value: *columns[ROW_MEAN],
            };
            array![at_rho, row_mean, a_claim]
        } else {
            array![at_rho]
        };
        claims.append(ClaimsOn { name: *name, claims: on.span() });
        k += 1;
    }
    let rows = dims.h_vars() + dims.s_vars();
    let z = Claim { point: shift.point.slice(0, rows), value: shift.value };
    claims.append(ClaimsOn { name: 'z', claims: array![z].span() });
    let multiplicities = array![('m_exp', M_EXP), ('m_limb', M_LIMB), ('m_norm', M_NORM)];
    let mut t = 3;
    for (name, index) in multiplicities {
        let claim = Claim { point: *points[t], value: *columns[index] };
        claims.append(ClaimsOn { name, claims: array![claim].span() });
        t += 1;
    }
    let layout = witness_layout(dims, params).unwrap();
    let mut out = array![];
    out.append_span(stack_claims(STACKS, @layout, claims.span()));
    let exp_point = *points[3];
    let index_point = exp_point.slice(1, exp_point.len() - 1);
    let table = Claim { point: index_point, value: *columns[TABLE_VALUE] };
    out.append(ClaimsOn { name: exp_table_name(*params.theta), claims: array![table].span() });
    out.span()
}

/// 2^k in M31 (k < 31 for every value the protocol uses: S ≤ 11, θ ≤ 30).
pub fn field_pow2(k: u32) -> crate::fields::m31::M31 {
    let mut x: u128 = 1;
    for _ in 0..k {
        x *= 2;
    }
    M31Trait::reduce_u128(x)
}
