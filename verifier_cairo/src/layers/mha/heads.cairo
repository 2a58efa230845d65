//! The head-batched product sum-check of A·Ṽ and QKᵀ (mirror of prover/layers/mha/heads.py
//! `verify_head_product`): Σ_{x,y} b(x, y)·f(x, y)·g(x, y) with b(x, y) = eq(x, r_head).

use crate::channels::base::Channel;
use crate::fields::qm31::QM31;
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::proof::HeadProductStep;
use super::structured::head_select_mle;

pub const DEGREE: u32 = 3;

/// The final claim must be b̃(r)·f·g with b̃ in closed form (panics with `check`); then f, g
/// are absorbed and the point returned.
pub fn verify_head_product<C, +Drop<C>, +Channel<C>>(
    step: @HeadProductStep,
    claim: QM31,
    r_head: Span<QM31>,
    inner_vars: u32,
    ref channel: C,
    check: felt252,
) -> Span<QM31> {
    let (point, final) = verify_sumcheck(
        claim, rounds(step.sumcheck.rounds), r_head.len() + inner_vars, DEGREE, ref channel,
    );
    let (left, right) = (*step.left, *step.right);
    assert(final == head_select_mle(r_head, point) * left * right, check);
    channel.mix_felts(array![left, right].span());
    point
}
