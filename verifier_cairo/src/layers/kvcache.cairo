//! QKV decoding with a KV cache (mirror of prover/layers/kvcache/model.py `check` and
//! verifier.py; docs/layers/kvcache.md): the output claims split per step; from step T down
//! to 1 the claims on K_t, V_t merged (same-poly), K_t = K_{t−1} + P_t ⊗ k_t by the
//! concatenation sum-check, and q_t, k_t, v_t from row t of x by qkv's projection on one row;
//! with committed initial caches, a sum-check that their empty rows are zero.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{eq_eval, eq_table, hypercube_point, log2_padded};
use crate::padding::{expect_empty_rows, verify_empty_rows};
use crate::pcs::proof::Claim;
use crate::sameply::{rounds, verify_sameply};
use crate::sumcheck::verify_sumcheck;
use crate::walk::layer::{ClaimsOn, LayerClaims};
use crate::walk::proof::{ConcatProof, DecodeProof};
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim, tensor};
use super::projection::{ProjectionsTrait, Target, qkv};

/// β(x‖y, r)·P(x)·k(y).
pub const DEGREE: u32 = 3;

/// dims (T, l, e, h, s0) with every write position s0 + t − 1 < l; x: T × e, k0, v0: l × h;
/// q: T × h, k, v: T × l × h; qkv's weights; rows beyond the filled ones zero in every public
/// cache (the concatenation adds k_t to an empty row, so it cannot wrap; `verify` shows it for
/// committed initial caches); then qkv's no-wrap bounds.
pub fn check(st: @PublicStatement) {
    let dims = *st.dims;
    assert(dims.len() == 5, 'statement.shape');
    let (steps, context, e, h, s0) = (*dims[0], *dims[1], *dims[2], *dims[3], *dims[4]);
    assert(steps >= 1 && context >= 1 && e >= 1 && h >= 1, 'statement.shape');
    let filled: u64 = s0.into() + steps.into();
    assert(filled <= context.into(), 'statement.shape');
    let cache = array![context, h].span();
    let rows = array![steps, e].span();
    expect_shapes(*st.inputs, array!['k0', 'v0', 'x'].span(), array![cache, cache, rows].span());
    let history = array![steps, context, h].span();
    let q = array![steps, h].span();
    expect_shapes(*st.outputs, array!['k', 'q', 'v'].span(), array![history, q, history].span());
    let projections = qkv();
    let (names, shapes) = projections.weight_shapes(e, h);
    expect_shapes(*st.weights, names, shapes);
    for pair in array![('k0', 'k'), ('v0', 'v')].span() {
        let (initial, caches) = *pair;
        let start = s0 * h;
        let prefill = tensor(*st.inputs, initial);
        if prefill.commitment.is_none() {
            let values = prefill.values;
            assert(is_zero(values.slice(start, values.len() - start)), 'statement.shape');
        }
        let caches = tensor(*st.outputs, caches);
        if caches.commitment.is_some() {
            continue;
        }
        let values = caches.values;
        for t in 0..steps {
            // step t + 1 holds rows 0..s0 + t + 1
            let start = (t * context + s0 + t + 1) * h;
            let end = (t + 1) * context * h;
            assert(is_zero(values.slice(start, end - start)), 'statement.shape');
        }
    }
    projections.check_ranges(*st.inputs, *st.weights, e, h);
}

fn is_zero(values: Span<felt252>) -> bool {
    for v in values {
        if *v != 0 {
            return false;
        }
    }
    true
}

pub fn verify(
    st: @PublicStatement,
    proof: @DecodeProof,
    outputs: OutputClaims,
    ref channel: Poseidon252Channel,
) -> LayerClaims {
    let dims = *st.dims;
    let (steps, context, e, h, s0) = (*dims[0], *dims[1], *dims[2], *dims[3], *dims[4]);
    let (step_vars, row_vars) = (log2_padded(steps), log2_padded(context));
    let col_vars = log2_padded(h);
    let (q_steps, k_steps) = (proof.q_steps.span(), proof.k_steps.span());
    let v_steps = proof.v_steps.span();
    assert(
        q_steps.len() == steps && k_steps.len() == steps && v_steps.len() == steps
            && proof.steps.len() == steps,
        'kvcache.step_count',
    );
    let (q, k, v) = (
        output_claim(outputs, 'q'), output_claim(outputs, 'k'), output_claim(outputs, 'v'),
    );
    let mut values = array![];
    values.append_span(q_steps);
    values.append_span(k_steps);
    values.append_span(v_steps);
    channel.mix_felts(values.span());
    check_split(q, q_steps, step_vars);
    check_split(k, k_steps, step_vars);
    check_split(v, v_steps, step_vars);

    let projections = qkv();
    let q_cols = q.point.slice(step_vars, q.point.len() - step_vars);
    let cache_vars = row_vars + col_vars;
    let mut x_claims = array![];
    let mut step_weights = array![];
    let mut pending: Option<(Claim, Claim)> = None;
    let mut t = steps;
    while t > 0 {
        t -= 1;
        let step = proof.steps[t];
        let k_claims = cache_claims(k, *k_steps[t], pending, true, step_vars);
        let merged_k = verify_sameply(step.k_merge, k_claims, cache_vars, ref channel);
        let v_claims = cache_claims(v, *v_steps[t], pending, false, step_vars);
        let merged_v = verify_sameply(step.v_merge, v_claims, cache_vars, ref channel);
        let concat = step.concat;
        let point = verify_concat(
            concat, merged_k, merged_v, s0 + t, row_vars, col_vars, ref channel,
        );
        // The projection's claims on one row: q_t at the output's column point, k_t, v_t at r_h.
        let r_h = point.slice(row_vars, col_vars);
        let targets = array![
            Target { row: 0, col: q_cols, value: *q_steps[t] },
            Target { row: 0, col: r_h, value: *concat.k_value },
            Target { row: 0, col: r_h, value: *concat.v_value },
        ]
            .span();
        let z = projections
            .verify_projection(
                step.projection, targets, array![QM31Trait::one()].span(), e, ref channel,
            );
        pending = Some(
            (
                Claim { point: merged_k.point, value: *concat.k_prev },
                Claim { point: merged_v.point, value: *concat.v_prev },
            ),
        );
        let rows = array![hypercube_point(t, step_vars)].span();
        let (x, weights) = projections.claims(rows, targets, z, step.projection);
        x_claims.append_span(x);
        step_weights.append(weights);
    }
    // Step 1's claims on K_0, V_0, and the empty rows' claims when they are committed.
    let (k0, v0) = pending.unwrap();
    let mut k0_claims = array![k0];
    let mut v0_claims = array![v0];
    let committed = tensor(*st.inputs, 'k0').commitment.is_some()
        || tensor(*st.inputs, 'v0').commitment.is_some();
    expect_empty_rows(proof.empty_rows, committed);
    if let Option::Some(empty_rows) = proof.empty_rows {
        let point = verify_empty_rows(empty_rows, 2, s0, row_vars, col_vars, ref channel);
        k0_claims.append(Claim { point, value: *empty_rows.values[0] });
        v0_claims.append(Claim { point, value: *empty_rows.values[1] });
    }
    LayerClaims {
        inputs: array![
            ClaimsOn { name: 'k0', claims: k0_claims.span() },
            ClaimsOn { name: 'v0', claims: v0_claims.span() },
            ClaimsOn { name: 'x', claims: x_claims.span() },
        ]
            .span(),
        weights: gather(step_weights.span()),
        witness: array![].span(),
    }
}

/// Σ_t eq(r, t)·y_t = y over the output claim's step variables r (`kvcache.output_split`).
fn check_split(out: Claim, values: Span<QM31>, step_vars: u32) {
    let weights = eq_table(out.point.slice(0, step_vars));
    let mut total = QM31Trait::zero();
    let mut i = 0;
    for y in values {
        total = total + *weights[i] * *y;
        i += 1;
    }
    assert(total == out.value, 'kvcache.output_split');
}

/// The claims on K_t (`first`) or V_t: its share of the output claim, and step t + 1's claim
/// on the cache before it.
fn cache_claims(
    out: Claim, value: QM31, pending: Option<(Claim, Claim)>, first: bool, step_vars: u32,
) -> Span<Claim> {
    let point = out.point.slice(step_vars, out.point.len() - step_vars);
    let mut claims = array![Claim { point, value }];
    if let Some((k, v)) = pending {
        claims.append(if first { k } else { v });
    }
    claims.span()
}

/// K_t(r_K) = K_{t−1}(r_K) + k̃_t(r_K), then the sum-check binding k̃_t to k_t (the same for
/// V); P_t(r_l) is eq(r_l, pos), computed in O(log l). Returns the sum-check's point (r_l, r_h).
fn verify_concat(
    proof: @ConcatProof,
    merged_k: Claim,
    merged_v: Claim,
    pos: u32,
    row_vars: u32,
    col_vars: u32,
    ref channel: Poseidon252Channel,
) -> Span<QM31> {
    let (k_prev, k_new) = (*proof.k_prev, *proof.k_new);
    let (v_prev, v_new) = (*proof.v_prev, *proof.v_new);
    assert(merged_k.value == k_prev + k_new, 'kvcache.concat');
    assert(merged_v.value == v_prev + v_new, 'kvcache.concat');
    channel.mix_felts(array![k_prev, k_new, v_prev, v_new].span());
    let lam = channel.draw_secure_felt();
    let (point, final) = verify_sumcheck(
        k_new + lam * v_new, rounds(proof.sumcheck.rounds), row_vars + col_vars, DEGREE,
        ref channel,
    );
    let (k_value, v_value) = (*proof.k_value, *proof.v_value);
    channel.mix_felts(array![k_value, v_value].span());
    let pad = eq_eval(point.slice(0, row_vars), hypercube_point(pos, row_vars));
    let k_part = eq_eval(merged_k.point, point) * k_value;
    let v_part = eq_eval(merged_v.point, point) * v_value;
    assert(final == pad * (k_part + lam * v_part), 'kvcache.concat_final');
    point
}

/// The steps' claims on each weight (every step lists the weights in name order), in the
/// steps' order.
fn gather(steps: Span<Span<ClaimsOn>>) -> Span<ClaimsOn> {
    let mut out = array![];
    let mut i = 0;
    for on in *steps[0] {
        let mut claims = array![];
        for step in steps {
            claims.append_span(*(*step)[i].claims);
        }
        out.append(ClaimsOn { name: *on.name, claims: claims.span() });
        i += 1;
    }
    out.span()
}
