//! What the PCS verifier sees (mirror of prover/pcs/proof.py and prover/claims.py), as the
//! calldata reader (`pcs/calldata.cairo`) hands it over: the statement, the transcript part of
//! the opening proof, and the Merkle openings of each fold group.

use crate::fields::qm31::QM31;

/// f~(point) = value, the point MSB-first.
#[derive(Copy, Drop, Serde, PartialEq, Debug)]
pub struct Claim {
    pub point: Span<QM31>,
    pub value: QM31,
}

#[generate_trait]
pub impl ClaimImpl of ClaimTrait {
    /// The point, then the value: what a transcript absorbs of a claim (Python's
    /// `mix_felts([*c.point, c.value])`).
    fn felts(self: @Claim) -> Span<QM31> {
        let mut out = array![];
        out.append_span(*self.point);
        out.append(*self.value);
        out.span()
    }
}

/// A commitment to an MLE of 2^n_vars values and the claims to open on it. The root is a
/// digest of the statement's hash as a u256 (`merkle::hashers::read_root`).
#[derive(Copy, Drop, Serde)]
pub struct PolyStatement {
    pub root: u256,
    pub n_vars: u32,
    pub claims: Span<Claim>,
}

/// The opening proof up to the queries, in transcript order (Python `OpeningProof`'s first
/// six fields): merge rounds and merged values (none when aligned), fold rounds (each
/// [c0, c2]), the committed layers' roots, the final value c and the grinding nonce.
#[derive(Copy, Drop, Serde)]
pub struct OpeningFront {
    pub merge: Span<Span<QM31>>,
    pub merged_values: Span<QM31>,
    pub fold: Span<Span<QM31>>,
    pub layer_roots: Span<u256>,
    pub final_value: QM31,
    pub pow_nonce: u64,
}

/// A Merkle opening of a PCS tree: per opened leaf its packed words (what the Poseidon leaf
/// hash absorbs) and its values, canonical M31 as felt252s, as the reader checked them (the
/// Blake2s leaf hash absorbs them as u32 words); then the siblings' felts in plan order
/// (docs/merkle.md).
#[derive(Copy, Drop)]
pub struct TreeOpening {
    pub words: Span<Span<felt252>>,
    pub values: Span<Span<felt252>>,
    pub siblings: Span<felt252>,
}

/// The openings one fold group (s, e] reads: the layer committed at s (none for s = 0), then
/// the polynomials entering in the group, in order (Python `layer_openings[g − 1]`,
/// `poly_openings[j]`).
#[derive(Copy, Drop)]
pub struct GroupOpenings {
    pub layer: Option<TreeOpening>,
    pub polys: Span<TreeOpening>,
}
