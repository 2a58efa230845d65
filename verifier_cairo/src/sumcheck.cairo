//! The generic sum-check verifier (mirror of prover/sumcheck/verifier.py and proof.py).
//!
//! A round sends its polynomial's coefficients without the linear one, [c0, c2, …, cd]; the
//! verifier rebuilds c1 from g(0) + g(1) = claim, which binds the round to the running claim.

use crate::channels::base::Channel;
use crate::fields::m31::P_FELT as P;
use crate::fields::qm31::{QM31, UnreducedQM31, UnreducedQM31Trait};

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
/// g(0) + g(1) = claim), by Horner's rule from cd with every step unreduced (`mul_by`: the
/// coordinates' bound grows 8p-fold a step) and one reduction at the end, or every
/// `HORNER_STEPS` steps, which keeps the bound below 2^251 (every round of every sum-check
/// evaluates this: 24 range checks a degree-3 round, 56 with the powers of r reduced).
pub fn evaluate_round(claim: QM31, sent: Span<QM31>, r: QM31) -> QM31 {
    let c0 = *sent[0];
    let mut c1: UnreducedQM31 = claim.into();
    c1 = c1.sub_reduced(c0).sub_reduced(c0);
    let higher = sent.slice(1, sent.len() - 1);
    for c in higher {
        c1 = c1.sub_reduced(*c);
    }
    // claim < p, and each subtraction adds p.
    let c1_bound: felt252 = (sent.len() + 2).into() * P;
    let mut terms: Array<(UnreducedQM31, felt252)> = array![];
    let mut down = higher;
    while let Some(c) = down.pop_back() {
        terms.append(((*c).into(), P));
    }
    terms.append((c1, c1_bound));
    terms.append((c0.into(), P));
    let mut terms = terms.span();
    let (mut acc, mut bound) = *terms.pop_front().unwrap();
    let mut steps = 0;
    for (term, term_bound) in terms {
        if steps == HORNER_STEPS {
            acc = acc.reduce().into();
            bound = P;
            steps = 0;
        }
        acc = acc.mul_by(bound, r) + *term;
        bound = 8 * bound * P + *term_bound;
        steps += 1;
    }
    acc.reduce()
}

/// Unreduced Horner steps in a row: a bound b < 2^35 (below d + 2 ≤ 16 times p) grows to
/// < 2^(35 + 34·6) = 2^239 in six.
const HORNER_STEPS: u32 = 6;
