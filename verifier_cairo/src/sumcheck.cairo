//! The generic sum-check verifier (mirror of prover/sumcheck/verifier.py and proof.py).
//!
//! A round sends its polynomial's coefficients without the linear one, [c0, c2, …, cd]; the
//! verifier rebuilds c1 from g(0) + g(1) = claim, which binds the round to the running claim.

use crate::channels::base::Channel;
use crate::fields::qm31::{QM31, QM31Trait};

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

/// c1 = claim - 2·c0 - c2 - … - cd, from g(0) + g(1) = claim.
fn linear_coefficient(claim: QM31, sent: Span<QM31>) -> QM31 {
    let c0 = *sent[0];
    let mut c1 = claim - c0 - c0;
    for c in sent.slice(1, sent.len() - 1) {
        c1 = c1 - *c;
    }
    c1
}

/// g(r) by Horner over the full coefficient list [c0, c1, c2, …, cd].
pub fn evaluate_round(claim: QM31, sent: Span<QM31>, r: QM31) -> QM31 {
    let mut acc = QM31Trait::zero();
    let mut higher = sent.slice(1, sent.len() - 1);
    while let Some(c) = higher.pop_back() {
        acc = acc * r + *c;
    }
    acc = acc * r + linear_coefficient(claim, sent);
    acc * r + *sent[0]
}
