//! The calldata layout of docs/calldata.md (mirror of serializer/header.py and
//! serializer/calldata.py `decode`): the header every proof starts with, the reader of a PCS
//! opening (kind 2; its parts are read by `pcs/calldata.cairo`) and the readers' shared
//! primitives. It checks, in the same order as the Python reader, everything a well-formed
//! proof must satisfy before any verification starts, and panics with the name of the first
//! failure. A layer proof (kind 4) is read by `walk/calldata.cairo`.

use crate::bounded_int::unpack_qm31_limbs;
use crate::fields::m31::{M31Trait, P};
use crate::merkle::hashers::HASH_POSEIDON;
use crate::fields::qm31::QM31;
use crate::packing::split_felt252;
use crate::pcs::calldata::{read_front, read_groups, read_statement};
use crate::pcs::params::PcsParams;
use crate::pcs::proof::{GroupOpenings, OpeningFront, PolyStatement};
use crate::pcs::queries::BatchLayoutTrait;
use crate::pcs::transcript::aligned_point;

/// The calldata layout's version (docs/calldata.md); 2 also had kinds 1 and 3, the standalone
/// matmul, retired when matmul became a layer kind.
pub const VERSION: felt252 = 3;
pub const KIND_PCS: felt252 = 2;
pub const KIND_WALK: felt252 = 4;
/// A model walk (docs/model-walk.md, "On chain").
pub const KIND_GRAPH: felt252 = 5;
const M31_PER_WORD: u64 = 8;

/// Calldata of kind 5, a model walk (what the contract dispatches on; its reader checks the
/// version).
pub fn is_graph(calldata: Span<felt252>) -> bool {
    calldata.len() >= 2 && *calldata[1] == KIND_GRAPH
}

/// Calldata of kind 4, a layer proof (what the contract dispatches on; its reader checks the
/// version).
pub fn is_walk(calldata: Span<felt252>) -> bool {
    calldata.len() >= 2 && *calldata[1] == KIND_WALK
}

/// Kind 2: claims on commitments of one hash and their batch opening. `io` is the statement's
/// felts; `params` the contract's parameters for its hash; `groups` the group parts read (all
/// of them, or in a session's first transaction those it carries).
#[derive(Copy, Drop)]
pub struct PcsCalldata {
    pub io: Span<felt252>,
    pub params: PcsParams,
    pub statement: Span<PolyStatement>,
    pub front: OpeningFront,
    pub groups: Span<GroupOpenings>,
}

/// `whole`: the calldata of a complete proof (`verify`), every group part present; else a
/// session's first transaction, as many whole group parts as follow the front.
pub fn read_pcs(calldata: Span<felt252>, params: @PcsParams, whole: bool) -> PcsCalldata {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_PCS, 'calldata.kind');
    let (params, statement) = read_statement(ref data, params);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let layout = BatchLayoutTrait::of_statement(statement, params.log_arity);
    let aligned = aligned_point(statement).is_some();
    let front = read_front(ref data, params.hash, @layout, aligned, statement.len());
    let groups = read_groups(ref data, @params, @layout, 0, 0, whole);
    PcsCalldata { io, params, statement, front, groups }
}

pub fn take(ref data: Span<felt252>) -> felt252 {
    match data.pop_front() {
        Some(x) => *x,
        None => core::panic_with_felt252('calldata.truncated'),
    }
}

pub fn take_exact(ref data: Span<felt252>, expected: felt252, reason: felt252) {
    assert(take(ref data) == expected, reason);
}

/// A u32 in [lo, hi], else `reason`.
pub fn take_u32_in(ref data: Span<felt252>, lo: u32, hi: u32, reason: felt252) -> u32 {
    let value: u32 = match take(ref data).try_into() {
        Some(v) => v,
        None => core::panic_with_felt252(reason),
    };
    assert(lo <= value && value <= hi, reason);
    value
}

/// A count of items of `per_item` felts each that must all follow (`calldata.truncated`
/// otherwise, before any of them is read).
pub fn take_count(ref data: Span<felt252>, per_item: u32) -> u32 {
    let count: u32 = match take(ref data).try_into() {
        Some(c) => c,
        None => core::panic_with_felt252('calldata.truncated'),
    };
    let felts: u64 = count.into() * per_item.into();
    assert(felts <= data.len().into(), 'calldata.truncated');
    count
}

/// Unpacks `count` values: every word holds 8 but the last, which holds `count mod 8` (if not
/// 0) and carries that count at 2^248. Word by word, checks the marker, then (partial word)
/// that the limbs between the values and the marker are zero, then each value `< p`.
pub fn unpack_words(words: Span<felt252>, count: u64) -> Span<felt252> {
    let mut words = words;
    let mut values = array![];
    let p: felt252 = P.into();
    // Full words, the bulk of the calldata: no marker, eight values, no inner loop.
    for _ in 0..count / M31_PER_WORD {
        let (top, [v0, v1, v2, v3, v4, v5, v6, v7]) = split_felt252(*words.pop_front().unwrap());
        assert(top == 0, 'calldata.marker');
        assert(
            v0 != p && v1 != p && v2 != p && v3 != p && v4 != p && v5 != p && v6 != p && v7 != p,
            'calldata.limb',
        );
        values.append(v0);
        values.append(v1);
        values.append(v2);
        values.append(v3);
        values.append(v4);
        values.append(v5);
        values.append(v6);
        values.append(v7);
    }
    let rest: u32 = (count % M31_PER_WORD).try_into().unwrap();
    if let Some(word) = words.pop_front() {
        let (top, limbs) = split_felt252(*word);
        assert(top == rest.into(), 'calldata.marker');
        let mut limbs = limbs.span();
        for _ in rest..8 {
            assert(*limbs.pop_front().unwrap() == 0, 'calldata.marker');
        }
        for limb in limbs {
            assert(*limb != p, 'calldata.limb');
            values.append(*limb);
        }
    }
    values.span()
}

/// Inverse of `QM31.pack(1)`: `felt >> 124` must be exactly 1 (`calldata.sentinel`), then each
/// limb `< p` (`calldata.limb`): every claimed value of a proof is unpacked here, and again
/// each time a library call passes it on, so the split is the bounded integers' (11 range
/// checks, `unpack_qm31_limbs`, against 25 as u128 divisions and u32 conversions).
pub fn unpack_qm31(felt: felt252) -> QM31 {
    let [a, b, c, d] = match unpack_qm31_limbs(felt) {
        Some(limbs) => limbs,
        None => core::panic_with_felt252('calldata.sentinel'),
    };
    match (a, b, c, d) {
        (Some(a), Some(b), Some(c), Some(d)) => QM31 {
            a: M31Trait::from_residue(a),
            b: M31Trait::from_residue(b),
            c: M31Trait::from_residue(c),
            d: M31Trait::from_residue(d),
        },
        _ => core::panic_with_felt252('calldata.limb'),
    }
}

/// A commitment's registry entry (docs/registry.md): hash tag, root (one felt for
/// Poseidon, low and high for Blake2s), rank, dims.
pub fn commitment_entry(hash: felt252, root: u256, dims: Span<u32>) -> Array<felt252> {
    let mut entry = array![hash];
    if hash == HASH_POSEIDON {
        entry.append(root.try_into().unwrap());
    } else {
        entry.append(root.low.into());
        entry.append(root.high.into());
    }
    entry.append(dims.len().into());
    for d in dims {
        entry.append((*d).into());
    }
    entry
}
