//! What a layer leaves behind (mirror of prover/walk/layer.py `LayerClaims`): claims on its
//! inputs and weights, by name in name order, and on its witness commitments and fixed tables
//! (for the witness opening).

use crate::pcs::proof::Claim;

#[derive(Copy, Drop, Serde, Debug)]
pub struct ClaimsOn {
    pub name: felt252,
    pub claims: Span<Claim>,
}

#[derive(Copy, Drop, Serde)]
pub struct LayerClaims {
    pub inputs: Span<ClaimsOn>,
    pub weights: Span<ClaimsOn>,
    pub witness: Span<ClaimsOn>,
}

/// One claim on one tensor.
pub fn single(name: felt252, claim: Claim) -> ClaimsOn {
    ClaimsOn { name, claims: array![claim].span() }
}
