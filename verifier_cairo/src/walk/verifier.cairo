//! Walk verifier (mirror of prover/walk/verifier.py): the statement's checks, its transcript,
//! the output claims, the layer's own verifier, then every public tensor's claims merged and
//! checked against the tensor. On chain a walk has public weights and no witness
//! (`walk::calldata` refuses the rest), so there is no opening to verify.

use crate::channel::Poseidon252Channel;
use crate::layers::{check_layer, layer_kind, verify_layer};
use crate::pcs::proof::Claim;
use crate::sameply::verify_sameply;
use super::calldata::names_of;
use super::layer::ClaimsOn;
use super::proof::{Named, SamePolyProof, WalkProof};
use super::statement::{PublicStatement, absorb_statement, draw_output_claims};
use super::tensor::{Tensors, evaluate_tensor, tensor_vars};

/// Returns on acceptance; panics with the name of the failed check.
pub fn verify_walk(proof: @WalkProof, st: @PublicStatement) {
    let layer = proof.layer;
    let (kind, tag) = layer_kind(layer);
    assert(*st.kind == kind, 'statement.kind');
    check_layer(layer, st);
    let mut channel: Poseidon252Channel = Default::default();
    absorb_statement(ref channel, st, tag);
    let outputs = draw_output_claims(ref channel, *st.outputs);
    let claims = verify_layer(layer, st, outputs, ref channel);
    settle_claims(
        *st.inputs, claims.inputs, proof.inputs, ref channel, 'walk.input_claims', 'walk.input_claim',
    );
    settle_claims(
        *st.weights,
        claims.weights,
        proof.weights,
        ref channel,
        'walk.weight_claims',
        'walk.weight_claim',
    );
}

/// Merges each public tensor's claims and evaluates the tensor at the merged point.
fn settle_claims(
    tensors: Tensors,
    claims: Span<ClaimsOn>,
    proofs: @Array<Named<Option<SamePolyProof>>>,
    ref channel: Poseidon252Channel,
    cover: felt252,
    mismatch: felt252,
) {
    let mut names = array![];
    for c in claims {
        names.append(*c.name);
    }
    assert(names.span() == tensors.names && names_of(proofs) == tensors.names, cover);
    let mut i = 0;
    for t in tensors.tensors {
        let on: Span<Claim> = *claims[i].claims;
        let merged = verify_sameply(proofs.at(i).value, on, tensor_vars(*t.shape), ref channel);
        assert(evaluate_tensor(t, merged.point) == merged.value, mismatch);
        i += 1;
    }
}
