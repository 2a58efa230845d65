//! The generic sum-check verifier (mirror of prover/sumcheck/verifier.py and proof.py).
//!
//! A round sends its polynomial's coefficients without the linear one, [c0, c2, …, cd]; the
//! verifier rebuilds c1 from g(0) + g(1) = claim, which binds the round to the running claim.

use crate::channels::base::Channel;
use crate::fields::qm31::{QM31, QM31Trait, UnreducedQM31, UnreducedQM31Trait};

/// Replays the rounds; returns the point r and the claim the final evaluation must meet.
pub fn verify_sumcheck<C, +Drop<C>, +Channel<C>>(
    claim: QM31, rounds: Span<Span<QM31>>, n_vars: u32, degree: u32, ref channel: C,
) -> (Span<QM31>, QM31) {
    assert(rounds.len() == n_vars, 'sumcheck.round_count');
    let mut claim = claim;
    let mut point = array![];
    for sent in rounds {
        assert((*sent).len() == degree, 'sumcheck.round_degree');
        channel.mix_felts(*sent);
        let r = channel.draw_secure_felt();
        claim = evaluate_round(claim, *sent, r);
        point.append(r);
    }
    (point.span(), claim)
}

/// g(r) = c0 + c1·r + c2·r^2 + … + cd·r^d with c1 = claim − 2·c0 − c2 − … − cd (from
/// g(0) + g(1) = claim): the products summed unreduced, one reduction in all (every round of
/// every sum-check evaluates this).
pub fn evaluate_round(claim: QM31, sent: Span<QM31>, r: QM31) -> QM31 {
    let c0 = *sent[0];
    let mut c1: UnreducedQM31 = claim.into();
    c1 = c1.sub_reduced(c0).sub_reduced(c0);
    let mut acc: UnreducedQM31 = c0.into();
    let mut power = r;
    let mut higher = sent.slice(1, sent.len() - 1);
    while let Some(c) = higher.pop_front() {
        power = power * r;
        acc = acc + (*c).mul_unreduced(power);
        c1 = c1.sub_reduced(*c);
    }
    (acc + c1.reduce().mul_unreduced(r)).reduce()
}
