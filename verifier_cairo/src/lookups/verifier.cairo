//! The batched LogUp-GKR verifier (mirror of prover/lookups/verifier.py, docs/lookups.md): the
//! mirror of prove_logup. It checks the proof's shape, the roots' denominators and every layer,
//! and returns the claims on the leaf MLEs that the caller must settle; `check_balance`
//! compares the roots of each lookup relation.

use crate::channels::base::Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::proof::LogUpProof;
use super::circuit::{
    DEGREE, MASK_SIZE, ROOT_SIZE, active, combine, eq_tails, flatten, gate, layer_claim, max_vars,
    reduce_mask,
};

/// What the GKR leaves on one instance's leaves: p~(point) and q~(point), where point is the
/// instance's n_vars-long suffix of the common point. Not checked here: the caller must.
#[derive(Drop, Copy, Serde, Debug, PartialEq)]
pub struct LeafClaim {
    pub point: Span<QM31>,
    pub numerator: QM31,
    pub denominator: QM31,
}

/// Every count the instance sizes fix, before anything is absorbed; returns n = max n_I.
pub fn check_shape(n_vars: Span<u32>, proof: @LogUpProof) -> u32 {
    let roots = proof.roots.span();
    assert(roots.len() == n_vars.len(), 'gkr.root_count');
    for root in roots {
        assert(root.len() == ROOT_SIZE, 'gkr.root_count');
    }
    let n = max_vars(n_vars);
    let layers = proof.layers.span();
    assert(layers.len() == n, 'gkr.layer_count');
    let mut j = 0;
    for layer in layers {
        let rounds = layer.sumcheck.rounds.span();
        assert(rounds.len() == j, 'gkr.round_count');
        for sent in rounds {
            assert(sent.len() == DEGREE, 'gkr.round_degree');
        }
        let masks = layer.masks.span();
        assert(masks.len() == active(n_vars, n, j).len(), 'gkr.mask_count');
        for mask in masks {
            assert(mask.len() == MASK_SIZE, 'gkr.mask_count');
        }
        j += 1;
    }
    n
}

/// Replays the walk from the roots to the leaves; returns one LeafClaim per instance.
///
/// The common point is kept as the previous layer's s and ρ (never copied per layer), and each
/// layer's eq(point[u:], s[u:]) of every active instance comes from one pass of suffix
/// products (`eq_tails`).
pub fn verify_logup<C, +Drop<C>, +Channel<C>>(
    n_vars: Span<u32>, proof: @LogUpProof, ref channel: C,
) -> Array<LeafClaim> {
    let n = check_shape(n_vars, proof);
    let roots = proof.roots.span();
    let mut claims = array![];
    for root in roots {
        let q = *root[1];
        assert(q != QM31Trait::zero(), 'logup.zero_denominator');
        claims.append((*root[0], q));
    }
    channel.mix_felts(flatten(roots));
    let mut claims = claims.span();
    let mut head: Span<QM31> = array![].span(); // the point is head ‖ ρ (empty at layer 0)
    let mut rho = QM31Trait::zero();
    let mut j = 0;
    for layer in proof.layers.span() {
        let mut mixed = array![];
        let mut active_claims = array![];
        let mut unused = array![];
        let mut i = 0;
        // the active instances (circuit::active), in instance order
        for claim in claims {
            let u = n - *n_vars[i];
            if j >= u {
                let (p, q) = *claim;
                mixed.append(p);
                mixed.append(q);
                active_claims.append((p, q));
                unused.append(u);
            }
            i += 1;
        }
        channel.mix_felts(mixed.span());
        let a = channel.draw_secure_felt();
        let lam = channel.draw_secure_felt();
        let claim = layer_claim(active_claims.span(), unused.span(), lam, a);
        let (s, final) = verify_sumcheck(
            claim, rounds(layer.sumcheck.rounds), j, DEGREE, ref channel,
        );
        let tails = eq_tails(head, rho, s);
        let masks = layer.masks.span();
        let mut gates = array![];
        let mut k = 0;
        for u in unused.span() {
            gates.append(*tails[j - *u] * gate(masks[k].span(), lam));
            k += 1;
        }
        assert(final == combine(gates.span(), a), 'gkr.layer');
        channel.mix_felts(flatten(masks));
        rho = channel.draw_secure_felt();
        head = s;
        let mut next = array![];
        let mut masks = masks;
        let mut i = 0;
        for claim in claims {
            let reduced = if j >= n - *n_vars[i] {
                reduce_mask(masks.pop_front().unwrap().span(), rho)
            } else {
                *claim
            };
            next.append(reduced);
            i += 1;
        }
        claims = next.span();
        j += 1;
    }
    let mut point = array![];
    if n > 0 {
        point.append_span(head);
        point.append(rho);
    }
    let point = point.span();
    let mut leaves = array![];
    let mut i = 0;
    for k in n_vars {
        let (p, q) = *claims[i];
        leaves.append(LeafClaim { point: point.slice(n - *k, *k), numerator: p, denominator: q });
        i += 1;
    }
    leaves
}

/// Σ_w P_w/Q_w = Σ_t P_t/Q_t for each (witness instances, table instances), cross-multiplied:
/// the sum's projective numerator must vanish (its denominator is a product of non-zero Q's).
pub fn check_balance(proof: @LogUpProof, relations: Span<(Span<u32>, Span<u32>)>) {
    let roots = proof.roots.span();
    for relation in relations {
        let (witness, table) = *relation;
        let mut num = QM31Trait::zero();
        let mut den = QM31Trait::one();
        for i in witness {
            let (p, q) = root_fraction(roots, *i);
            num = num * q + p * den;
            den = den * q;
        }
        for i in table {
            let (p, q) = root_fraction(roots, *i);
            num = num * q - p * den;
            den = den * q;
        }
        assert(num == QM31Trait::zero(), 'logup.balance');
    }
}

/// Instance i's root (P, Q), Q ≠ 0. Python unpacks the root (a root not of 2 values raises
/// there, unnamed; verify_logup's `gkr.root_count` has refused it before).
fn root_fraction(roots: Span<Array<QM31>>, i: u32) -> (QM31, QM31) {
    let root = roots[i];
    assert(root.len() == ROOT_SIZE, 'gkr.root_count');
    let q = *root[1];
    assert(q != QM31Trait::zero(), 'logup.zero_denominator');
    (*root[0], q)
}
