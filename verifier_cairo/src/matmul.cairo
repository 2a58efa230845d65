//! The matmul verifier (mirror of prover/matmul/verifier.py and instance.py, step for step;
//! docs/matmul.md): C = A·B by one sum-check over the inner dimension, for public A, B, C
//! (kind 1) or for B bound by a PCS commitment (kind 3), whose claim B~(r_inner, r_col) the
//! caller then opens.

use crate::calldata::{CommittedMatmulCalldata, MatmulCalldata, Matrix};
use crate::channel::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::fields::qm31::QM31;
use crate::merkle::hashers::mix_root;
use crate::mle::{eq_table, evaluate_matrix, log2_padded};
use crate::pcs::proof::{Claim, PolyStatement};
use crate::pcs::verifier::{QueryPhase, verify_batch};
use crate::ranges::check_product_range;
use crate::sumcheck::verify_sumcheck;

/// The big-endian integer of ASCII `cairn/matmul/v1` (a Cairo short string is exactly that).
pub const DOMAIN_TAG: felt252 = 'cairn/matmul/v1';
/// ASCII `cairn/matmul-cw/v1`: committed-B transcripts never coincide with public-B ones.
pub const COMMITTED_TAG: felt252 = 'cairn/matmul-cw/v1';
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

/// Committed B: its own tag, which registered weight B is (model id, weight index, config
/// hash: one felt each), the dimensions, B's root (`mix_root` of its hash) and n_vars, then A
/// and C.
fn absorb_committed(ref channel: Poseidon252Channel, proof: CommittedMatmulCalldata) {
    channel.mix_root(COMMITTED_TAG);
    channel.mix_root(proof.model_id);
    channel.mix_root(proof.weight);
    channel.mix_root(proof.config_hash);
    channel.mix_u64(proof.m.into());
    channel.mix_u64(proof.k.into());
    channel.mix_u64(proof.n.into());
    mix_root(ref channel, proof.params.hash, proof.root);
    channel.mix_u64(proof.b_vars.into());
    channel.mix_m31s(proof.a.words);
    channel.mix_m31s(proof.c.words);
}

/// Where the sum-check leaves the verifier: the claim Ã(r_row, r)·B̃(r, r_col) must meet.
#[derive(Drop)]
struct SumcheckEnd {
    a_value: QM31,
    eq_inner: Span<QM31>,
    eq_col: Span<QM31>,
    r_inner: Span<QM31>,
    r_col: Span<QM31>,
    final_claim: QM31,
}

/// r_row, r_col, the claim C~(r_row, r_col), the sum-check over the inner dimension, and
/// Ã(r_row, r_inner).
fn run_sumcheck(
    ref channel: Poseidon252Channel,
    m: u32,
    k: u32,
    n: u32,
    a: Matrix,
    c: Matrix,
    rounds: Span<Span<QM31>>,
) -> SumcheckEnd {
    let (log_m, log_n) = (log2_padded(m), log2_padded(n));
    let challenges = channel.draw_secure_felts(log_m + log_n).span();
    let eq_row = eq_table(challenges.slice(0, log_m));
    let r_col = challenges.slice(log_m, log_n);
    let eq_col = eq_table(r_col);
    let claim = evaluate_matrix(c.values, n, eq_row, eq_col);
    let (r_inner, final_claim) = verify_sumcheck(
        claim, rounds, log2_padded(k), DEGREE, ref channel,
    );
    let eq_inner = eq_table(r_inner);
    let a_value = evaluate_matrix(a.values, k, eq_row, eq_inner);
    SumcheckEnd { a_value, eq_inner, eq_col, r_inner, r_col, final_claim }
}

/// Returns on acceptance; panics with the name of the failed check. The shapes were checked
/// by the reader; C = A·B must not wrap mod p (`statement.range`) before anything is absorbed.
pub fn verify_matmul(proof: MatmulCalldata) {
    check_product_range(proof.a.values, proof.k, proof.b.values, proof.n);
    let mut channel = Default::default();
    absorb_instance(ref channel, proof);
    let end = run_sumcheck(ref channel, proof.m, proof.k, proof.n, proof.a, proof.c, proof.rounds);
    let b_value = evaluate_matrix(proof.b.values, proof.n, end.eq_inner, end.eq_col);
    assert(end.final_claim == end.a_value * b_value, 'matmul.final_evaluation');
}

/// Committed B: the sum-check with the sent b_value (`matmul.final_evaluation`), then the PCS
/// opening of the claim B~(r_inner ‖ r_col) = b_value on the same channel, for the group parts
/// the calldata carried (all of them unless this is a session's first transaction).
pub fn verify_committed_matmul(proof: CommittedMatmulCalldata) -> QueryPhase {
    let mut channel = Default::default();
    absorb_committed(ref channel, proof);
    let end = run_sumcheck(ref channel, proof.m, proof.k, proof.n, proof.a, proof.c, proof.rounds);
    assert(end.final_claim == end.a_value * proof.b_value, 'matmul.final_evaluation');
    channel.mix_felts(array![proof.b_value].span());
    let mut point = array![];
    point.append_span(end.r_inner);
    point.append_span(end.r_col);
    let claim = Claim { point: point.span(), value: proof.b_value };
    let b = PolyStatement { root: proof.root, n_vars: proof.b_vars, claims: array![claim].span() };
    verify_batch(@proof.params, array![b].span(), proof.front, proof.groups, ref channel)
}
