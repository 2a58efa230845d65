//! Shorthands for the tests and the generated vectors.

use core::poseidon::poseidon_hash_span;
use starknet::syscalls::deploy_syscall;
use starknet::testing::{pop_log, set_contract_address};
use starknet::{ContractAddress, SyscallResultTrait};
use crate::calldata::read_pcs;
use crate::channels::blake2s::Blake2sChannel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::contract::CairnVerifier::Event;
use crate::contract::{CairnVerifier, ICairnVerifierDispatcher, ICairnVerifierDispatcherTrait};
use crate::walk::contract::{
    CairnAttentionVerifier, CairnEncoderVerifier, CairnRangeVerifier, CairnWalkVerifier,
};
use crate::graph::contract::CairnGraphVerifier;
use crate::pcs::contract::CairnFrontVerifier;
use crate::lookups::contract::CairnLookupVerifier;
use crate::layers::Classes;
use crate::fields::cm31::{CM31, CM31Trait};
use crate::fields::m31::{M31, M31Trait};
use crate::fields::qm31::{QM31, QM31Trait};
use crate::blake2s::Blake2sHash;
use crate::merkle::hashers::MerkleHasher;
use crate::merkle::verifier::verify_opening;
use crate::pcs::params::PcsParams;
use crate::pcs::front::QueryPhaseTrait;
use crate::pcs::verifier::verify_batch;
use super::vectors::MerkleCase;

/// The main contract's constructor arguments: the owner and the classes it calls.
pub fn constructor_args(owner: ContractAddress) -> Span<felt252> {
    let owner: felt252 = owner.into();
    array![
        owner, CairnWalkVerifier::TEST_CLASS_HASH.into(),
        CairnAttentionVerifier::TEST_CLASS_HASH.into(),
        CairnEncoderVerifier::TEST_CLASS_HASH.into(), CairnRangeVerifier::TEST_CLASS_HASH.into(),
        CairnLookupVerifier::TEST_CLASS_HASH.into(),
        CairnGraphVerifier::TEST_CLASS_HASH.into(), CairnFrontVerifier::TEST_CLASS_HASH.into(),
    ]
        .span()
}

/// The classes the walk classes call, as the main contract passes them.
pub fn classes() -> Classes {
    Classes {
        dense: CairnWalkVerifier::TEST_CLASS_HASH.try_into().unwrap(),
        attention: CairnAttentionVerifier::TEST_CLASS_HASH.try_into().unwrap(),
        encoder: CairnEncoderVerifier::TEST_CLASS_HASH.try_into().unwrap(),
        range: CairnRangeVerifier::TEST_CLASS_HASH.try_into().unwrap(),
        lookup: CairnLookupVerifier::TEST_CLASS_HASH.try_into().unwrap(),
    }
}

/// The PCS fronts' class, as the main contract calls it.
pub fn front_class() -> starknet::ClassHash {
    CairnFrontVerifier::TEST_CLASS_HASH.try_into().unwrap()
}

#[inline(never)]
pub fn m31(x: u32) -> M31 {
    M31Trait::new(x)
}

#[inline(never)]
pub fn cm31(a: u32, b: u32) -> CM31 {
    CM31Trait::new(a, b)
}

#[inline(never)]
pub fn qm31(a: u32, b: u32, c: u32, d: u32) -> QM31 {
    QM31Trait::new(a, b, c, d)
}

/// `base[..start] ++ insert ++ base[end..]`: how a tampered proof is derived from an honest one.
pub fn splice(
    base: Array<felt252>, start: u32, end: u32, insert: Array<felt252>,
) -> Array<felt252> {
    let base = base.span();
    let mut out = array![];
    out.append_span(base.slice(0, start));
    out.append_span(insert.span());
    out.append_span(base.slice(end, base.len() - end));
    out
}

pub fn verify_poseidon(case: MerkleCase) -> Span<Span<u32>> {
    verify_merkle::<felt252>(case)
}

pub fn verify_blake2s(case: MerkleCase) -> Span<Span<u32>> {
    verify_merkle::<Blake2sHash>(case)
}

/// `verify_opening` of a generated case; its root is read as the siblings are.
fn verify_merkle<D, impl H: MerkleHasher<D>, +Copy<D>, +Drop<D>, +PartialEq<D>>(
    case: MerkleCase,
) -> Span<Span<u32>> {
    let root = H::read_digest(case.root).unwrap();
    verify_opening(root, case.depth, case.width, case.leaf_indices, case.leaves, case.siblings)
}

/// What the contract runs on kind-2 calldata, with any parameters: read it whole, verify the
/// opening on a fresh channel; returns the statement's `io_hash`.
pub fn verify_pcs(calldata: Array<felt252>, params: PcsParams) -> felt252 {
    let decoded = read_pcs(calldata.span(), @params, true);
    let params = @decoded.params;
    let mut channel: Poseidon252Channel = Default::default();
    let phase = verify_batch(params, decoded.statement, decoded.front, decoded.groups, ref channel);
    assert(phase.is_complete(params), 'incomplete');
    poseidon_hash_span(decoded.io)
}

/// As `verify_pcs`, on a Blake2s channel (a walk's witness opening runs on one).
pub fn verify_pcs_on_blake2s(calldata: Array<felt252>, params: PcsParams) -> felt252 {
    let decoded = read_pcs(calldata.span(), @params, true);
    let params = @decoded.params;
    let mut channel: Blake2sChannel = Default::default();
    let phase = verify_batch(params, decoded.statement, decoded.front, decoded.groups, ref channel);
    assert(phase.is_complete(params), 'incomplete');
    poseidon_hash_span(decoded.io)
}

fn owner() -> ContractAddress {
    'owner'.try_into().unwrap()
}

/// The account the tests verify from once the models are registered.
pub fn anyone() -> ContractAddress {
    'anyone'.try_into().unwrap()
}

/// A CairnVerifier whose owner registered `models` (id, config hash, commitment entries);
/// calls then come from `anyone()`.
pub fn deploy_with_models(
    models: Array<(felt252, felt252, Span<felt252>)>,
) -> ICairnVerifierDispatcher {
    let (address, _) = deploy_syscall(
        CairnVerifier::TEST_CLASS_HASH.try_into().unwrap(), 0, constructor_args(owner()), false,
    )
        .unwrap_syscall();
    let verifier = ICairnVerifierDispatcher { contract_address: address };
    set_contract_address(owner());
    for (model_id, config_hash, commitments) in models {
        verifier.register_model(model_id, config_hash, commitments);
    }
    set_contract_address(anyone());
    verifier
}

/// The state hash the last `SessionState` event carries: the stored one, and the hash of
/// `state`, the state Python computes (`cairn.deploy.sessions.session_state`). Returns the
/// felts its `SessionKept` events carry, in order.
fn check_state(
    verifier: ICairnVerifierDispatcher, id: felt252, state: Span<felt252>,
) -> Span<felt252> {
    let (mut emitted, mut kept) = (None, array![]);
    while let Some(event) = pop_log::<Event>(verifier.contract_address) {
        match event {
            Event::SessionState(e) => {
                assert_eq!(e.session_id, id);
                emitted = Some(e.state_hash);
            },
            Event::SessionKept(e) => {
                assert_eq!(e.session_id, id);
                kept.append_span(e.felts);
            },
            _ => {},
        }
    }
    assert_eq!(emitted, Some(poseidon_hash_span(state)));
    assert_eq!(verifier.session_state_hash(id), poseidon_hash_span(state));
    kept.span()
}

/// `open_session` of a transaction that does not finish the proof (`staged` as given), leaving
/// Python's `state`: the session id and what the session keeps (its `SessionKept` events'
/// felts, which the caller sends back).
pub fn open_session(
    verifier: ICairnVerifierDispatcher,
    calldata: Array<felt252>,
    staged: bool,
    state: Span<felt252>,
) -> (felt252, Span<felt252>) {
    assert_eq!(verifier.open_session(calldata.span(), staged), 0);
    let id = poseidon_hash_span(calldata.span());
    (id, check_state(verifier, id, state))
}

/// `continue_session` of a transaction that does not finish the proof, leaving `next`: what
/// the session keeps then.
pub fn continue_session(
    verifier: ICairnVerifierDispatcher,
    id: felt252,
    kept: Span<felt252>,
    state: Span<felt252>,
    trees: Array<felt252>,
    next: Span<felt252>,
) -> Span<felt252> {
    assert_eq!(verifier.continue_session(id, state, kept, trees.span()), 0);
    check_state(verifier, id, next)
}

/// What a transaction kept with one felt more: the caller sends back something else.
pub fn tampered(kept: Span<felt252>) -> Span<felt252> {
    let mut felts = array![];
    felts.append_span(kept);
    felts.append(1);
    felts.span()
}

/// The transaction that finishes session `id`: the proof hash.
pub fn finish_session(
    verifier: ICairnVerifierDispatcher,
    id: felt252,
    kept: Span<felt252>,
    state: Span<felt252>,
    trees: Array<felt252>,
) -> felt252 {
    verifier.continue_session(id, state, kept, trees.span())
}
