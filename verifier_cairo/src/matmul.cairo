//! The matmul verifier (mirror of prover/matmul/verifier.py and instance.py, step for step;
//! docs/matmul.md): C = A·B for public A, B, C, by one sum-check over the inner dimension.

use crate::calldata::MatmulCalldata;
use crate::channel::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::mle::{eq_table, evaluate_matrix, log2_padded};
use crate::sumcheck::verify_sumcheck;

/// The big-endian integer of ASCII `cairn/matmul/v1` (a Cairo short string is exactly that).
pub const DOMAIN_TAG: felt252 = 'cairn/matmul/v1';
/// The summand Ã(r_row, x)·B̃(x, r_col) is a product of two MLEs.
pub const DEGREE: u32 = 2;

/// Tag, dimensions and all three matrices enter the transcript before any challenge is drawn.
fn absorb_instance(ref channel: Poseidon252Channel, proof: MatmulCalldata) {
    channel.mix_root(DOMAIN_TAG);
    channel.mix_u64(proof.m.into());
    channel.mix_u64(proof.k.into());
    channel.mix_u64(proof.n.into());
    channel.mix_m31s(proof.a.words);
    channel.mix_m31s(proof.b.words);
    channel.mix_m31s(proof.c.words);
}

/// Returns on acceptance; panics with the name of the failed check.
pub fn verify_matmul(proof: MatmulCalldata) {
    let MatmulCalldata { io: _, m, k, n, a, b, c, rounds } = proof;
    let mut channel = Default::default();
    absorb_instance(ref channel, proof);
    let (log_m, log_n) = (log2_padded(m), log2_padded(n));
    let challenges = channel.draw_secure_felts(log_m + log_n).span();
    let eq_row = eq_table(challenges.slice(0, log_m));
    let eq_col = eq_table(challenges.slice(log_m, log_n));
    let claim = evaluate_matrix(c.values, n, eq_row, eq_col);
    let (r_inner, final_claim) = verify_sumcheck(
        claim, rounds, log2_padded(k), DEGREE, ref channel,
    );
    let eq_inner = eq_table(r_inner);
    let expected = evaluate_matrix(a.values, k, eq_row, eq_inner)
        * evaluate_matrix(b.values, n, eq_inner, eq_col);
    assert(final_claim == expected, 'matmul.final_evaluation');
}
