//! Same-poly accumulation verifier (mirror of prover/sameply/verifier.py): k claims on one
//! MLE become one, by a degree-2 sum-check of Σ_x g(x)·f(x) = Σ_i a_i·y_i with
//! g = Σ_i a_i·eq(r_i, ·); the prover sends f(r') and the verifier rebuilds g(r').

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::eq_eval;
use crate::pcs::proof::Claim;
use crate::sumcheck::verify_sumcheck;
use crate::walk::proof::SamePolyProof;

pub const DEGREE: u32 = 2;

pub fn verify_sameply(
    proof: @Option<SamePolyProof>, claims: Span<Claim>, n_vars: u32, ref channel: Poseidon252Channel,
) -> Claim {
    assert(!claims.is_empty(), 'sameply.claims');
    for c in claims {
        assert((*c.point).len() == n_vars, 'sameply.claims');
    }
    let proof = match proof {
        Option::Some(p) => {
            assert(claims.len() > 1, 'sameply.proof');
            p
        },
        Option::None => {
            assert(claims.len() == 1, 'sameply.proof');
            return *claims[0];
        },
    };
    let mut values = array![];
    for c in claims {
        values.append(*c.value);
    }
    channel.mix_felts(values.span());
    let coeffs = channel.draw_secure_felts(claims.len());
    let mut total = QM31Trait::zero();
    let mut i = 0;
    for c in claims {
        total = total + *coeffs[i] * *c.value;
        i += 1;
    }
    let (point, final) = verify_sumcheck(
        total, rounds(proof.sumcheck.rounds), n_vars, DEGREE, ref channel,
    );
    let mut weight = QM31Trait::zero();
    let mut i = 0;
    for c in claims {
        weight = weight + *coeffs[i] * eq_eval(*c.point, point);
        i += 1;
    }
    assert(final == weight * *proof.value, 'sameply.final_evaluation');
    channel.mix_felts(array![*proof.value].span());
    Claim { point, value: *proof.value }
}

/// A proof's rounds as the generic sum-check verifier takes them.
pub fn rounds(rounds: @Array<Array<QM31>>) -> Span<Span<QM31>> {
    let mut out = array![];
    for r in rounds.span() {
        out.append(r.span());
    }
    out.span()
}
