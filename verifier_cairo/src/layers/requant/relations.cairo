//! Requant's two lookup relations and its witness layout, on claimed values and closed forms
//! (mirror of the verifier's half of prover/layers/requant/relations.py).
//!
//! RANGE: r0, r1 and r1 + δ ∈ [0, 2^⌈k/2⌉); CLAMP: (y', y) ∈ {(q(i), clamp(q(i), ±C))} with
//! q(i) = clamp(i + y'_lo, y'_lo, y'_hi). Instances, in this order: the RANGE witness (σ ∈
//! {0,1}²: r0, r1, r1 + δ, then 0), the CLAMP witness, the RANGE table, the CLAMP table.

use crate::channels::base::Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{eq_eval, hypercube_point};
use crate::pcs::proof::Claim;
use crate::pcs::stack::{StackLayout, StackLayoutTrait, stack_claims};
use crate::softmax::relations::{Key, KeyTrait, STACK_VARS};
use crate::softmax::structured::index_mle;
use crate::walk::layer::ClaimsOn;
use crate::walk::proof::RequantColumns;
use crate::softmax::soundness::pow2_u128 as pow2;
use super::params::{RequantParams, RequantParamsTrait};
use super::structured::{clamp_mle, signed_qm31};

/// The statement names the witness stacks requant.0, requant.1, …
pub const STACKS: felt252 = 'requant';
/// The RANGE witness has 2^2 blocks of the entries.
const RANGE_SLOTS: u32 = 2;

/// key_R(v) = α_R − v; key_C(y', y) = α_C − y' − β_C·y.
#[derive(Copy, Drop, PartialEq, Debug)]
pub struct Relations {
    pub range: Key,
    pub clamp: Key,
}

#[generate_trait]
pub impl RelationsImpl of RelationsTrait {
    /// α_R, α_C, β_C, in that order.
    fn draw<C, +Drop<C>, +Channel<C>>(ref channel: C) -> Relations {
        let c = channel.draw_secure_felts(3).span();
        Relations {
            range: Key { alpha: *c[0], betas: array![].span() },
            clamp: Key { alpha: *c[1], betas: array![*c[2]].span() },
        }
    }

    /// The witness leaves' keys at the RANGE point (σ, ρ) — its leaf MLE the σ-combination of
    /// r̃0(ρ), r̃1(ρ), r̃1(ρ) + δ and 0 — and of (ỹ'(ρ), ỹ(ρ)).
    fn witness_keys_at(
        self: @Relations, params: @RequantParams, range_point: Span<QM31>, cols: @RequantColumns,
    ) -> (QM31, QM31) {
        let sigma = range_point.slice(0, RANGE_SLOTS);
        let delta = field(params.delta());
        let blocks = array![*cols.r0, *cols.r1, *cols.r1 + delta];
        let mut value = QM31Trait::zero();
        let mut i = 0;
        for block in blocks {
            value = value + eq_eval(sigma, hypercube_point(i, RANGE_SLOTS)) * block;
            i += 1;
        }
        let clamp = self.clamp.of_tuple(*cols.yq, array![*cols.y].span());
        (self.range.of_tuple(value, array![].span()), clamp)
    }

    /// The tables' keys in closed form: the index, and clamp(clamp(v, lo, hi), ±C) =
    /// clamp(v, max(lo, −C), min(hi, C)) (both intervals contain 0).
    fn table_keys_at(
        self: @Relations, params: @RequantParams, range_point: Span<QM31>, clamp_point: Span<QM31>,
    ) -> (QM31, QM31) {
        let (lo, hi) = params.quotient_range();
        let c = params.clamp();
        let q = clamp_mle(clamp_point, -lo, lo, hi);
        let y = clamp_mle(clamp_point, -lo, core::cmp::max(lo, -c), core::cmp::min(hi, c));
        let range = self.range.of_tuple(index_mle(range_point), array![].span());
        (range, self.clamp.of_tuple(q, array![y].span()))
    }
}

/// Variables of each instance for 2^n entries.
pub fn instance_vars(n: u32, params: @RequantParams) -> Span<u32> {
    array![n + RANGE_SLOTS, n, params.lo_bits(), params.table_bits()].span()
}

/// r0, r1, y', y (2^n each) and the two multiplicities, stacked; None when a column is larger
/// than a stack (Python raises ValueError: `requant.params`).
pub fn witness_layout(n: u32, params: @RequantParams) -> Option<StackLayout> {
    let names = array!['r0', 'r1', 'yq', 'y', 'm_range', 'm_clamp'].span();
    let sizes = array![n, n, n, n, params.lo_bits(), params.table_bits()].span();
    StackLayoutTrait::of_columns(names, sizes, STACK_VARS)
}

/// What the walk's witness opening proves, by stack: r0, r1, y', y at ρ (the CLAMP witness
/// point), y also at the walk's output point (`y_claim`), each multiplicity at its table's
/// point. The layout must fit (the statement check has made sure).
pub fn opening_claims(
    n: u32, params: @RequantParams, points: Span<Span<QM31>>, cols: @RequantColumns, y_claim: Claim,
) -> Span<ClaimsOn> {
    let rho = *points[1];
    let claims = array![
        on('r0', array![Claim { point: rho, value: *cols.r0 }]),
        on('r1', array![Claim { point: rho, value: *cols.r1 }]),
        on('yq', array![Claim { point: rho, value: *cols.yq }]),
        on('y', array![Claim { point: rho, value: *cols.y }, y_claim]),
        on('m_range', array![Claim { point: *points[2], value: *cols.m_range }]),
        on('m_clamp', array![Claim { point: *points[3], value: *cols.m_clamp }]),
    ];
    stack_claims(STACKS, @witness_layout(n, params).unwrap(), claims.span())
}

/// x̃(ρ) = (2^k·ỹ'(ρ) + r̃0(ρ) + 2^⌈k/2⌉·r̃1(ρ) − 2^(k−1))·M⁻¹.
pub fn input_value(params: @RequantParams, cols: @RequantColumns) -> QM31 {
    let r = *cols.r0 + *cols.r1 * field(pow2(params.lo_bits()));
    let value = *cols.yq * field(pow2(*params.shift)) + r - field(params.half());
    value * field((*params.multiplier).into()).inverse()
}

fn on(name: felt252, claims: Array<Claim>) -> ClaimsOn {
    ClaimsOn { name, claims: claims.span() }
}

/// A non-negative integer below 2^31 in the field.
fn field(x: u128) -> QM31 {
    signed_qm31(x.try_into().unwrap())
}
