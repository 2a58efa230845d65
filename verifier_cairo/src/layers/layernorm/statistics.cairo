//! The statistics step (mirror of prover/layers/layernorm/statistics.py; docs/layers/
//! layernorm.md, step 7): the public row sums s1 and limb sums s2 are what the committed limbs
//! of h sum to, by one degree-3 sum-check over the entries whose end the verifier evaluates
//! with the eq factors and the real columns' mask in closed form.

use crate::channels::base::Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::layers::mha::structured::head_select_mle;
use crate::mle::{eq_eval, hypercube_point, prefix_mask};
use crate::pcs::proof::Claim;
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::proof::StatisticsStep;
use super::relations::recompose;

const DEGREE: u32 = 3;
/// The limb sums per row: Σlo², Σlo·hi, Σhi².
const LIMB_SUMS: u32 = 3;

/// `layernorm.statistics` unless the sum-check's end is the summand at π in the sent limbs;
/// returns π. `s1`, `s2`: the walk's claims on the statistics; 2^n entries, limbs of w bits,
/// d real columns.
pub fn verify_statistics<C, +Drop<C>, +Channel<C>>(
    step: @StatisticsStep, s1: Claim, s2: Claim, n: u32, w: u32, d: u32, ref channel: C,
) -> Span<QM31> {
    let mu = channel.draw_secure_felt();
    let rows = s1.point.len();
    let claim = s1.value + mu * s2.value;
    let (point, final) = verify_sumcheck(
        claim, rounds(step.sumcheck.rounds), n, DEGREE, ref channel,
    );
    let real = prefix_mask(point.slice(rows, point.len() - rows), d);
    let eq1 = head_select_mle(s1.point, point) * real;
    let eq2 = head_select_mle(s2.point.slice(0, rows), point) * real;
    let (lo, hi) = (*step.lo, *step.hi);
    let limbs = array![lo * lo, lo * hi, hi * hi];
    let col = s2.point.slice(rows, s2.point.len() - rows);
    let mut squares = QM31Trait::zero();
    for k in 0..LIMB_SUMS {
        squares = squares + eq_eval(col, hypercube_point(k, col.len())) * *limbs[k];
    }
    assert(final == eq1 * recompose(w, lo, hi) + mu * eq2 * squares, 'layernorm.statistics');
    channel.mix_felts(array![lo, hi].span());
    point
}
