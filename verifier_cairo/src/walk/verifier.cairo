//! Walk verifier (mirror of prover/walk/verifier.py `replay_layer`): the statement's checks,
//! its transcript, the output claims, the layer's own verifier, every public tensor's claims
//! merged and checked against the tensor, the committed tensors' claims gathered
//! (prover/walk/claims.py). What is left is the PCS batch opening of those claims, on the same
//! channel, which the main contract verifies (`contract.cairo`, Python `open_committed`). On
//! chain a walk has no witness.

use crate::channels::poseidon252::Poseidon252Channel;
use crate::layers::{LayerSet, layer_kind, layer_outputs};
use crate::pcs::proof::{Claim, OpeningFront, PolyStatement};
use crate::sameply::{rounds, verify_sameply};
use super::calldata::{WalkCalldata, names_of};
use super::layer::ClaimsOn;
use super::proof::{Named, SamePolyProof};
use super::statement::{OutputClaims, absorb_statement, draw_output_claims, expect_binding};
use super::tensor::{Tensors, TensorsTrait, evaluate_tensor, tensor_vars};

/// The claims on the committed tensors and the opening that must prove them, with the
/// channel as the walk leaves it.
#[derive(Drop, Serde)]
pub struct CommittedOpening {
    pub hash: felt252,
    pub statement: Span<PolyStatement>,
    pub front: OpeningFront,
    pub channel: Poseidon252Channel,
}

/// Panics with the name of the failed check; the layer is one of `L`'s kinds. Returns the committed tensors' opening to
/// verify (None without committed tensors).
pub fn verify_walk<impl L: LayerSet>(walk: @WalkCalldata) -> Option<CommittedOpening> {
    let proof = walk.proof;
    let st = walk.statement;
    let layer = proof.layer;
    let (kind, tag) = layer_kind(layer);
    // No kind read here has `LayerSpec.reads` (Python's `statement.reads` never applies).
    assert(*st.kind == kind, 'statement.kind');
    L::check_layer(layer, st);
    let mut channel: Poseidon252Channel = Default::default();
    absorb_statement(ref channel, st, tag);
    let outputs = draw_output_claims(ref channel, st, proof.outputs, layer_outputs(layer));
    let claims = L::verify_layer(layer, st, outputs, ref channel);
    let committed = *st.committed;
    let (inputs, input_claims) = public_part(*st.inputs, claims.inputs, committed);
    settle_claims(
        inputs, input_claims, proof.inputs, ref channel, 'walk.input_claims', 'walk.input_claim',
    );
    let (weights, weight_claims) = public_part(*st.weights, claims.weights, committed);
    settle_claims(
        weights, weight_claims, proof.weights, ref channel, 'walk.weight_claims',
        'walk.weight_claim',
    );
    let statement = opening_claims(committed, claims.inputs, claims.weights, outputs);
    expect_binding(st, claims.weights);
    assert(proof.opening.is_some() == !committed.names.is_empty(), 'walk.opening');
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
            Some(CommittedOpening { hash, statement, front, channel })
        },
        None => None,
    }
}

/// A group's public tensors and the claims on them (those on committed tensors left out).
#[inline(never)]
fn public_part(
    group: Tensors, claims: Span<ClaimsOn>, committed: Tensors,
) -> (Tensors, Span<ClaimsOn>) {
    let (mut names, mut tensors) = (array![], array![]);
    let mut i = 0;
    for t in group.tensors {
        if t.commitment.is_none() {
            names.append(*group.names[i]);
            tensors.append(*t);
        }
        i += 1;
    }
    let mut public = array![];
    for on in claims {
        if committed.find(*on.name).is_none() {
            public.append(*on);
        }
    }
    (Tensors { names: names.span(), tensors: tensors.span() }, public.span())
}

/// Each committed tensor's PCS statement (root, size, claims) in name order, its claims from
/// exactly one of the layer's input claims, its weight claims and the output claims
/// (`walk.committed_claims` otherwise; mirror of prover/walk/claims.py `opening_claims`).
fn opening_claims(
    committed: Tensors, inputs: Span<ClaimsOn>, weights: Span<ClaimsOn>, outputs: OutputClaims,
) -> Span<PolyStatement> {
    let mut statement = array![];
    let mut i = 0;
    for t in committed.tensors {
        let name = *committed.names[i];
        i += 1;
        let mut found: Array<Span<Claim>> = array![];
        for on in inputs {
            if *on.name == name {
                found.append(*on.claims);
            }
        }
        for on in weights {
            if *on.name == name {
                found.append(*on.claims);
            }
        }
        let mut j = 0;
        for n in outputs.names {
            if *n == name {
                found.append(array![*outputs.claims[j]].span());
            }
            j += 1;
        }
        assert(found.len() == 1, 'walk.committed_claims');
        let c = (*t.commitment).unwrap();
        statement.append(PolyStatement { root: c.root, n_vars: c.n_vars, claims: *found[0] });
    }
    statement.span()
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
