//! LayerNorm's relations, on claimed values and closed forms (mirror of the verifier's half of
//! prover/layers/layernorm/relations.py): the two requant gadgets (normalise n, scale z), the
//! LIMB range of h's limbs, the stacked witness layout, and the linear identities that turn
//! column values into claims.
//!
//! LogUp instances, in this order: normalise's four, scale's four, then the LIMB witness (σ, x:
//! lo, then hi + 2^(w−1)) and the LIMB table [0, 2^w).

use crate::channels::base::Channel;
use crate::fields::qm31::QM31;
use crate::layers::requant::params::RequantParamsTrait;
use crate::layers::requant::relations::{
    Relations as RequantRelations, RelationsTrait as RequantRelationsTrait,
    instance_vars as gadget_vars,
};
use crate::layers::requant::structured::signed_qm31;
use crate::mle::prefix_mask;
use crate::pcs::proof::Claim;
use crate::pcs::stack::{StackLayout, StackLayoutTrait, stack_claims, with_suffix};
use crate::softmax::relations::{Key, KeyTrait, STACK_VARS};
use crate::softmax::structured::index_mle;
use crate::walk::layer::ClaimsOn;
use crate::walk::proof::{LimbColumns, RequantColumns};
use super::params::{LayerNormParams, LayerNormParamsTrait};

/// The statement names the witness stacks layernorm.0, layernorm.1, …
pub const STACKS: felt252 = 'layernorm';
/// Each relation's first instance in the batch: normalise 0–3, scale 4–7, LIMB 8–9.
pub const NORM: u32 = 0;
pub const SCALE: u32 = 4;
pub const LIMB: u32 = 8;

/// Both gadgets' keys (requant's α_R, α_C, β_C each), then the LIMB key α_L − v.
#[derive(Copy, Drop)]
pub struct Relations {
    pub norm: RequantRelations,
    pub scale: RequantRelations,
    pub limb: Key,
}

#[generate_trait]
pub impl RelationsImpl of RelationsTrait {
    /// normalise's three challenges, scale's three, then α_L.
    fn draw<C, +Drop<C>, +Channel<C>>(ref channel: C) -> Relations {
        let norm = RequantRelationsTrait::draw(ref channel);
        let scale = RequantRelationsTrait::draw(ref channel);
        let limb = Key { alpha: channel.draw_secure_felt(), betas: array![].span() };
        Relations { norm, scale, limb }
    }

    /// The LIMB witness key at (σ, ρ) — lo, then hi + 2^(w−1), σ-combined — and the table's
    /// at its point (the index MLE).
    fn limb_keys_at(
        self: @Relations,
        params: @LayerNormParams,
        witness_point: Span<QM31>,
        table_point: Span<QM31>,
        cols: @LimbColumns,
    ) -> (QM31, QM31) {
        let sigma = *witness_point[0];
        let offset = signed_qm31(params.offset().try_into().unwrap());
        let block = *cols.lo + (*cols.hi + offset - *cols.lo) * sigma;
        let none = array![].span();
        (self.limb.of_tuple(block, none), self.limb.of_tuple(index_mle(table_point), none))
    }
}

/// Variables of each instance for 2^n entries (n = ⌈log₂ s⌉ + ⌈log₂ d⌉).
pub fn instance_vars(n: u32, params: @LayerNormParams) -> Span<u32> {
    let mut out = array![];
    out.append_span(gadget_vars(n, @params.norm()));
    out.append_span(gadget_vars(n, @params.scale()));
    out.append(n + 1);
    out.append(*params.limb_bits);
    out.span()
}

/// The committed columns in Python's `column_vars` order: the limbs and the LIMB multiplicity,
/// then each gadget's columns (prefixed), stacked; None when a column exceeds a stack.
pub fn witness_layout(n: u32, params: @LayerNormParams) -> Option<StackLayout> {
    let (norm, scale) = (params.norm(), params.scale());
    let names = array![
        'h.lo', 'h.hi', 'h.m', 'norm.r0', 'norm.r1', 'norm.yq', 'norm.y', 'norm.m_range',
        'norm.m_clamp', 'scale.r0', 'scale.r1', 'scale.yq', 'scale.y', 'scale.m_range',
        'scale.m_clamp',
    ];
    let sizes = array![
        n, n, *params.limb_bits, n, n, n, n, norm.lo_bits(), norm.table_bits(), n, n, n, n,
        scale.lo_bits(), scale.table_bits(),
    ];
    StackLayoutTrait::of_columns(names.span(), sizes.span(), STACK_VARS)
}

/// h̃ = l̃o + 2^w·h̃i: linear, so it holds of the MLEs at any point.
pub fn recompose(w: u32, lo: QM31, hi: QM31) -> QM31 {
    lo + hi * signed_qm31(crate::softmax::soundness::pow2_u128(w).try_into().unwrap())
}

/// z̃(r) = ỹ(r) − [i < s]~(r_rows)·β̃(r_cols): y = z + β on the s real rows.
pub fn scaled_output(y: Claim, beta: QM31, row_vars: u32, s: u32) -> Claim {
    Claim { point: y.point, value: y.value - prefix_mask(y.point.slice(0, row_vars), s) * beta }
}

/// h̃ = c̃ + μ̃(rows)·[j < d]~(cols): c = h − μ on the d real columns.
pub fn centred_to_input(c: QM31, mean: QM31, cols: Span<QM31>, d: u32) -> QM31 {
    c + mean * prefix_mask(cols, d)
}

/// Where the protocol's steps leave their claims (Python `StepPoints`).
#[derive(Copy, Drop)]
pub struct StepPoints {
    pub rho_rows: Span<QM31>,
    pub rho_cols: Span<QM31>,
    pub kappa_cols: Span<QM31>,
    pub kappa_rows: Span<QM31>,
    pub pi: Span<QM31>,
    pub output: Span<QM31>,
}

/// A gadget's column claims at its LogUp points (requant's `column_claims`: r0, r1, y', y at
/// the CLAMP witness point, each multiplicity at its table's), y also at `output`, each name
/// prefixed.
fn gadget_claims(
    prefix: felt252, points: Span<Span<QM31>>, cols: @RequantColumns, output: Claim,
) -> Array<ClaimsOn> {
    let (rho, dotted) = (*points[1], prefix * 256 + '.');
    let entries = array![('r0', 2, *cols.r0), ('r1', 2, *cols.r1), ('yq', 2, *cols.yq)];
    let mut out = array![];
    for (name, len, value) in entries {
        let claims = array![Claim { point: rho, value }].span();
        out.append(ClaimsOn { name: with_suffix(dotted, name, len), claims });
    }
    let y = array![Claim { point: rho, value: *cols.y }, output].span();
    out.append(ClaimsOn { name: with_suffix(dotted, 'y', 1), claims: y });
    let m_range = array![Claim { point: *points[2], value: *cols.m_range }].span();
    out.append(ClaimsOn { name: with_suffix(dotted, 'm_range', 7), claims: m_range });
    let m_clamp = array![Claim { point: *points[3], value: *cols.m_clamp }].span();
    out.append(ClaimsOn { name: with_suffix(dotted, 'm_clamp', 7), claims: m_clamp });
    out
}

/// What the walk's witness opening proves, by stack: each gadget's columns at its LogUp
/// points; n at (ρ_rows, κ_cols) where the scale step ended (`n_value`); z at the output point
/// (z = y − β, with β̃ there sent); the limbs at ρ and at π (`lo`, `hi` the statistics'), the
/// LIMB multiplicity at its table's point. `points` are the ten leaf points.
pub fn opening_claims(
    n: u32,
    params: @LayerNormParams,
    points: Span<Span<QM31>>,
    at: @StepPoints,
    sent: (@RequantColumns, @RequantColumns, @LimbColumns),
    ends: (QM31, QM31, QM31, QM31),
    y: Claim,
    s: u32,
) -> Span<ClaimsOn> {
    let (norm, scale, limbs) = sent;
    let (n_value, beta, lo, hi) = ends;
    let mut n_point = array![];
    n_point.append_span(*at.rho_rows);
    n_point.append_span(*at.kappa_cols);
    let n_claim = Claim { point: n_point.span(), value: n_value };
    let z_claim = scaled_output(y, beta, at.rho_rows.len(), s);
    let mut claims = gadget_claims('norm', points.slice(NORM, 4), norm, n_claim);
    claims.append_span(gadget_claims('scale', points.slice(SCALE, 4), scale, z_claim).span());
    let limb_point = *points[LIMB];
    let rho = limb_point.slice(1, limb_point.len() - 1);
    let pi = *at.pi;
    claims.append(ClaimsOn {
        name: 'h.lo',
        claims: array![Claim { point: rho, value: *limbs.lo }, Claim { point: pi, value: lo }]
            .span(),
    });
    claims.append(ClaimsOn {
        name: 'h.hi',
        claims: array![Claim { point: rho, value: *limbs.hi }, Claim { point: pi, value: hi }]
            .span(),
    });
    claims.append(ClaimsOn {
        name: 'h.m',
        claims: array![Claim { point: *points[LIMB + 1], value: *limbs.m }].span(),
    });
    stack_claims(STACKS, @witness_layout(n, params).unwrap(), claims.span())
}
