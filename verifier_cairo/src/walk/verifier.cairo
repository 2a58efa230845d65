//! Walk verifier (mirror of prover/walk/verifier.py `replay_layer`): the statement's checks,
//! its transcript, the output claims, the layer's own verifier, every public tensor's claims
//! merged and checked against the tensor, the committed tensors' claims gathered
//! (prover/walk/claims.py) and the witness claims. What is left are the openings: the PCS
//! batch opening of the committed tensors' claims on the same channel, then the witness
//! opening on a Blake2s fork of it, which the main contract verifies (`verify_openings` here,
//! called from `contract.cairo`; Python `open_committed`, `verify_witness`).

use starknet::ClassHash;
use crate::channels::blake2s::Blake2sChannel;
use crate::channels::fork::{fork, join};
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::layers::{Classes, LayerSet, layer_kind, layer_outputs, layer_reads};
use crate::pcs::calldata::read_groups_before;
use crate::pcs::params::{params_for, witness_params};
use crate::pcs::stack::witness_hash;
use crate::pcs::proof::{Claim, OpeningFront, PolyStatement};
use crate::pcs::front::{QueryPhase, QueryPhaseTrait};
use crate::pcs::contract::{FrontClass, FrontClassTrait};
use crate::pcs::verifier::verify_groups;
use crate::sameply::{rounds, verify_sameply};
use super::calldata::{WalkCalldata, names_of};
use super::layer::ClaimsOn;
use super::proof::{Named, OpeningProof, SamePolyProof};
use super::statement::{OutputClaims, absorb_statement, draw_output_claims, expect_binding};
use super::tensor::{TensorCommitment, Tensors, TensorsTrait, evaluate_tensor, tensor_vars};

/// Claims on committed polynomials and the opening's front that must prove them (the tree
/// parts follow the walk's Serde part): the committed tensors' (of their hash) or the witness
/// opening's (its witness hash, on a Blake2s fork).
#[derive(Drop, Serde)]
pub struct Opening {
    pub hash: felt252,
    pub statement: Span<PolyStatement>,
    pub front: OpeningFront,
}

/// What the walk leaves to verify: the channel as it leaves it, the committed tensors'
/// opening, then the witness opening (each None when there is none).
#[derive(Drop, Serde)]
pub struct WalkOpenings {
    pub channel: Poseidon252Channel,
    pub committed: Option<Opening>,
    pub witness: Option<Opening>,
}

/// Panics with the name of the failed check; the layer is one of `L`'s kinds. Returns the
/// openings to verify.
pub fn verify_walk<impl L: LayerSet>(walk: @WalkCalldata, classes: Classes) -> WalkOpenings {
    let proof = walk.proof;
    let st = walk.statement;
    let layer = proof.layer;
    let (kind, tag) = layer_kind(layer);
    assert(*st.kind == kind, 'statement.kind');
    for name in layer_reads(kind) {
        assert((*st.committed).find(*name).is_none(), 'statement.reads');
    }
    let _ = L::check_layer(kind, st, classes);
    let mut channel: Poseidon252Channel = Default::default();
    absorb_statement(ref channel, st, tag);
    let outputs = draw_output_claims(ref channel, st, proof.outputs, layer_outputs(layer));
    let claims = L::verify_layer(layer, st, outputs, ref channel, classes);
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
    let witness = witness_claims(*st.witness, L::tables(kind, st), claims.witness);
    assert(proof.witness_opening.is_some() == !witness.is_empty(), 'walk.witness_opening');
    assert(proof.opening.is_some() == !committed.names.is_empty(), 'walk.opening');
    let committed = match proof.opening {
        Some(opening) => {
            let hash = (*walk.params).unwrap().hash;
            Some(Opening { hash, statement, front: front_of(opening) })
        },
        None => None,
    };
    let witness = match proof.witness_opening {
        Some(opening) => {
            // The layer's witness hash, which its tables' pinned commitments use too.
            let hash = witness_hash(st.witness);
            Some(Opening { hash, statement: witness, front: front_of(opening) })
        },
        None => None,
    };
    WalkOpenings { channel, committed, witness }
}

pub fn front_of(opening: @OpeningProof) -> OpeningFront {
    OpeningFront {
        merge: rounds(opening.merge.rounds),
        merged_values: opening.merged_values.span(),
        fold: rounds(opening.fold.rounds),
        layer_roots: opening.layer_roots.span(),
        final_value: *opening.final_value,
        pow_nonce: *opening.pow_nonce,
    }
}

/// The witness opening's statement (Python `witness_batch`): the witness stacks, then the
/// kind's fixed tables, each by name with the layer's claims on it (`walk.witness_claims`
/// unless they fall on exactly those).
fn witness_claims(
    witness: Tensors, tables: Span<(felt252, TensorCommitment)>, claims: Span<ClaimsOn>,
) -> Span<PolyStatement> {
    assert(claims.len() == witness.names.len() + tables.len(), 'walk.witness_claims');
    let mut statement = array![];
    let mut i = 0;
    for c in witness.commitments() {
        let on = claims_on(claims, *witness.names[i]);
        statement.append(PolyStatement { root: *c.root, n_vars: *c.n_vars, claims: on });
        i += 1;
    }
    for (name, c) in tables {
        let on = claims_on(claims, *name);
        statement.append(PolyStatement { root: *c.root, n_vars: *c.n_vars, claims: on });
    }
    statement.span()
}

/// The claims on `name` (`walk.witness_claims` if there are none).
fn claims_on(claims: Span<ClaimsOn>, name: felt252) -> Span<Claim> {
    for on in claims {
        if *on.name == name {
            return *on.claims;
        }
    }
    core::panic_with_felt252('walk.witness_claims')
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
pub fn settle_claims(
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

/// The fork tag of the witness opening (Python `walk.witness.TAG`) and its length in bytes.
const WITNESS_TAG: felt252 = 'cairn/witness/v1';
const WITNESS_TAG_LEN: u32 = 16;

/// The openings a walk leaves (`verify_fronts`, by the front class `fronts`), then their group
/// parts `data` (all of them when `whole`, else as many whole parts as follow, the committed
/// tensors' first: `continue_openings`). Returns each opening's query phase in that order
/// (complete when `whole`).
pub fn verify_openings(
    openings: WalkOpenings, data: Span<felt252>, whole: bool, fronts: ClassHash,
) -> Array<QueryPhase> {
    let (phases, _) = verify_fronts(openings, fronts);
    continue_openings(phases, data, whole)
}

/// The openings' fronts, verified by the front class `fronts` (`pcs::contract`): the committed
/// tensors' opening on the walk's channel, then the witness opening on a Blake2s fork of it,
/// joined back (Python `open_committed`, `verify_witness` up to the queries). Returns their
/// query phases and the channel (as the committed opening leaves it when there is no witness
/// opening: a model walk's settlement in a transaction of its own, or its witness opening's
/// front in stages).
pub fn verify_fronts(
    openings: WalkOpenings, fronts: ClassHash,
) -> (Array<QueryPhase>, Poseidon252Channel) {
    let WalkOpenings { mut channel, committed, witness } = openings;
    let class = FrontClass { class_hash: fronts };
    let mut phases = array![];
    if let Some(o) = committed {
        let params = params_for(o.hash).unwrap();
        let (phase, next) = class.poseidon_front(params, o.statement, o.front, channel);
        phases.append(phase);
        channel = next;
    }
    if let Some(o) = witness {
        let child = witness_fork(@channel);
        let params = witness_params(o.hash).unwrap();
        let (phase, child) = class.blake2s_front(params, o.statement, o.front, child);
        phases.append(phase);
        join(ref channel, @child.digest);
    }
    (phases, channel)
}

/// A session's next tree parts `data` (whole parts, in order; all of them when `whole`): each
/// unfinished opening reads the parts it still needs, every part read before any is checked
/// (`calldata.extra` if parts are left over); returns the phases after the checks. A phase's
/// parameters are its hash's:
/// the witness opening's differ from `BLAKE2S_PARAMS` only in the grinding and the size bound,
/// both checked with the front in the session's first transaction.
pub fn continue_openings(
    phases: Array<QueryPhase>, data: Span<felt252>, whole: bool,
) -> Array<QueryPhase> {
    let mut data = data;
    let mut reads = array![];
    for phase in phases.span() {
        let params = params_for(*phase.hash).unwrap();
        let layout = phase.layout(@params);
        let (group, tree) = (*phase.next_group, *phase.next_tree);
        reads.append(read_groups_before(ref data, @params, @layout, group, tree, whole));
    }
    assert(data.is_empty(), 'calldata.extra');
    let mut next = array![];
    let mut i = 0;
    for mut phase in phases {
        let read = *reads[i];
        if !read.is_empty() {
            verify_groups(@params_for(phase.hash).unwrap(), ref phase, read);
        }
        next.append(phase);
        i += 1;
    }
    next
}

/// The Blake2s channel the witness opening runs on, forked from the walk's channel as the
/// committed tensors' opening leaves it (Python `fork(channel, TAG)`).
pub fn witness_fork(channel: @Poseidon252Channel) -> Blake2sChannel {
    fork(channel.digest(), WITNESS_TAG, WITNESS_TAG_LEN)
}

/// Whether every opening of a session is verified.
pub fn openings_complete(phases: @Array<QueryPhase>) -> bool {
    for phase in phases {
        if !phase.is_complete(@params_for(*phase.hash).unwrap()) {
            return false;
        }
    }
    true
}
