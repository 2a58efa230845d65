//! The generic verifier's own shape checks, called directly: a round count and a degree off
//! by one, whatever the layer proof whose rounds it checks.

use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::QM31Trait;
use crate::sumcheck::verify_sumcheck;

#[test]
#[should_panic(expected: ('sumcheck.round_count',))]
fn round_count() {
    let mut channel: Poseidon252Channel = Default::default();
    let round = array![QM31Trait::one(), QM31Trait::one()].span();
    verify_sumcheck(QM31Trait::zero(), array![round].span(), 2, 2, ref channel);
}

#[test]
#[should_panic(expected: ('sumcheck.round_degree',))]
fn round_degree() {
    let mut channel: Poseidon252Channel = Default::default();
    let round = array![QM31Trait::one()].span();
    verify_sumcheck(QM31Trait::zero(), array![round, round].span(), 2, 2, ref channel);
}
