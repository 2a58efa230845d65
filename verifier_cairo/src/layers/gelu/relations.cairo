//! GELU's lookup relation and witness layout, on claimed values and closed forms (mirror of
//! the verifier's half of prover/layers/gelu/relations.py).
//!
//! (x, y) ∈ {(g, T[g + 2^(b_in−1)])}. Instances, in this order: the witness (one leaf per
//! padded entry), the table (one leaf per row, numerators the multiplicities).

use crate::channels::base::Channel;
use crate::fields::qm31::QM31;
use crate::layers::requant::structured::signed_qm31;
use crate::pcs::proof::Claim;
use crate::pcs::stack::{StackLayout, StackLayoutTrait, stack_claims};
use crate::softmax::relations::{Key, KeyTrait, STACK_VARS};
use crate::softmax::structured::index_mle;
use crate::walk::layer::ClaimsOn;
use crate::walk::proof::GeluColumns;
use super::params::{GeluParams, GeluParamsTrait};
use super::table::table_name;

/// The statement names the witness stacks gelu.0, gelu.1, …
pub const STACKS: felt252 = 'gelu';
/// The instances' indices.
pub const WITNESS: u32 = 0;
pub const TABLE: u32 = 1;

/// key(x, y) = α − x − β·y.
#[derive(Copy, Drop, PartialEq, Debug)]
pub struct Lookup {
    pub key: Key,
}

#[generate_trait]
pub impl LookupImpl of LookupTrait {
    /// α, β, in that order.
    fn draw<C, +Drop<C>, +Channel<C>>(ref channel: C) -> Lookup {
        let c = channel.draw_secure_felts(2).span();
        Lookup { key: Key { alpha: *c[0], betas: array![*c[1]].span() } }
    }

    /// The witness keys' MLE at ρ: linear in x̃(ρ) and ỹ(ρ).
    fn witness_key_at(self: @Lookup, cols: @GeluColumns) -> QM31 {
        self.key.of_tuple(*cols.x, array![*cols.y].span())
    }

    /// The table keys' MLE: the input column is index_mle − 2^(b_in−1) (Σ eq = 1), the output
    /// column the sent T̃, which the witness opening checks against the pinned table.
    fn table_key_at(self: @Lookup, params: @GeluParams, point: Span<QM31>, t: QM31) -> QM31 {
        let g = index_mle(point) - signed_qm31(params.offset().into());
        self.key.of_tuple(g, array![t].span())
    }
}

/// Variables of each instance for 2^n entries: the witness, then the table.
pub fn instance_vars(n: u32, params: @GeluParams) -> Span<u32> {
    array![n, *params.b_in].span()
}

/// y (2^n) and the multiplicities m (2^b_in), stacked; None when y is larger than a stack
/// (Python raises ValueError: `gelu.params`).
pub fn witness_layout(n: u32, params: @GeluParams) -> Option<StackLayout> {
    StackLayoutTrait::of_columns(array!['y', 'm'].span(), array![n, *params.b_in].span(), STACK_VARS)
}

/// What the walk's witness opening proves, by stack and table: y at ρ and at the walk's
/// output point, m and the pinned table at the table's point. The layout must fit.
pub fn opening_claims(
    n: u32, params: @GeluParams, points: Span<Span<QM31>>, cols: @GeluColumns, y_claim: Claim,
) -> Span<ClaimsOn> {
    let (rho, at_table) = (*points[WITNESS], *points[TABLE]);
    let claims = array![
        ClaimsOn { name: 'y', claims: array![Claim { point: rho, value: *cols.y }, y_claim].span() },
        ClaimsOn { name: 'm', claims: array![Claim { point: at_table, value: *cols.m }].span() },
    ];
    let mut out = array![];
    out.append_span(stack_claims(STACKS, @witness_layout(n, params).unwrap(), claims.span()));
    let name = table_name(*params.f_in, *params.b_in, *params.f_out, *params.b_out);
    out.append(ClaimsOn { name, claims: array![Claim { point: at_table, value: *cols.t }].span() });
    out.span()
}
