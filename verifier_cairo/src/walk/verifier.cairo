//! Walk verifier (mirror of prover/walk/verifier.py `replay_layer`): the statement's checks,
//! its transcript, the output claims, the layer's own verifier, every public tensor's claims
//! merged and checked against the tensor. What is left is the PCS batch opening of the claims
//! on the committed weights, on the same channel, which the main contract verifies
//! (`contract.cairo`, Python `open_committed`). On chain a walk has no witness.

use crate::channel::Poseidon252Channel;
use crate::layers::{check_layer, layer_kind, verify_layer};
use crate::pcs::proof::{Claim, OpeningFront, PolyStatement};
use crate::sameply::{rounds, verify_sameply};
use super::calldata::{WalkCalldata, names_of};
use super::layer::ClaimsOn;
use super::proof::{Named, SamePolyProof};
use super::statement::{absorb_statement, expect_binding, draw_output_claims};
use super::tensor::{Tensors, evaluate_tensor, tensor_vars};

/// The claims on the committed weights and the opening that must prove them, with the
/// channel as the walk leaves it.
#[derive(Drop, Serde)]
pub struct CommittedOpening {
    pub hash: felt252,
    pub statement: Span<PolyStatement>,
    pub front: OpeningFront,
    pub channel: Poseidon252Channel,
}

/// Panics with the name of the failed check. Returns the committed weights' opening to
/// verify (None without committed weights).
pub fn verify_walk(walk: @WalkCalldata) -> Option<CommittedOpening> {
    let proof = walk.proof;
    let st = walk.statement;
    let layer = proof.layer;
    let (kind, tag) = layer_kind(layer);
    assert(*st.kind == kind, 'statement.kind');
    expect_binding(st);
    check_layer(layer, st);
    let mut channel: Poseidon252Channel = Default::default();
    absorb_statement(ref channel, st, tag);
    let outputs = draw_output_claims(ref channel, *st.outputs);
    let claims = verify_layer(layer, st, outputs, ref channel);
    settle_claims(
        *st.inputs, claims.inputs, proof.inputs, ref channel, 'walk.input_claims', 'walk.input_claim',
    );
    let weights = *st.weights;
    let mut names = array![];
    for c in claims.weights {
        names.append(*c.name);
    }
    assert(names.span() == weights.names, 'walk.weight_claims');
    let (public, public_claims, committed) = split_committed(weights, claims.weights);
    settle_claims(
        public, public_claims, proof.weights, ref channel, 'walk.weight_claims', 'walk.weight_claim',
    );
    assert(proof.opening.is_some() == !committed.is_empty(), 'walk.opening');
    match proof.opening {
        Some(opening) => {
            let front = OpeningFront {
                merge: rounds(opening.merge.rounds),
                merged_values: opening.merged_values.span(),
                fold: rounds(opening.fold.rounds),
                layer_roots: opening.layer_roots.span(),
                final_value: *opening.final_value,
                pow_nonce: *opening.pow_nonce,
            };
            let hash = (*walk.params).unwrap().hash;
            Some(CommittedOpening { hash, statement: committed, front, channel })
        },
        None => None,
    }
}

/// The public weights with their claims, and the committed weights' PCS statement (root,
/// size and claims), in name order.
fn split_committed(
    weights: Tensors, claims: Span<ClaimsOn>,
) -> (Tensors, Span<ClaimsOn>, Span<PolyStatement>) {
    let (mut names, mut tensors, mut public_claims) = (array![], array![], array![]);
    let mut committed = array![];
    let mut i = 0;
    for t in weights.tensors {
        match t.commitment {
            Some(c) => committed
                .append(PolyStatement { root: *c.root, n_vars: *c.n_vars, claims: *claims[i].claims }),
            None => {
                names.append(*weights.names[i]);
                tensors.append(*t);
                public_claims.append(*claims[i]);
            },
        }
        i += 1;
    }
    (
        Tensors { names: names.span(), tensors: tensors.span() },
        public_claims.span(),
        committed.span(),
    )
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
