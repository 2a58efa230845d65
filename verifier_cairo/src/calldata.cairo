//! Reader of the calldata layout of docs/calldata.md (mirror of serializer/calldata.py
//! `decode`): it checks, in the same order as the Python reader, everything a well-formed proof
//! must satisfy before any verification starts, and panics with the name of the first failure.
//! Like the Python reader it expects exactly log2(next_pow2(k)) rounds of `DEGREE`
//! coefficients, and reports a mismatch with the sum-check's names. The PCS parts of kinds 2
//! and 3 are read by `pcs/calldata.cairo`.

use crate::fields::m31::P;
use crate::merkle::hashers::HASH_POSEIDON;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::matmul::DEGREE;
use crate::mle::log2_padded;
use crate::packing::split_felt252;
use crate::pcs::calldata::{read_front, read_groups, read_statement, take_hash_and_root};
use crate::pcs::params::{PcsParams, params_for};
use crate::pcs::proof::{GroupOpenings, OpeningFront, PolyStatement};
use crate::pcs::queries::BatchLayoutTrait;
use crate::pcs::transcript::aligned_point;

/// The calldata layout's version (docs/calldata.md): 2 since kind 3 carries the config hash
/// and B's hash tag.
pub const VERSION: felt252 = 2;
pub const KIND_MATMUL: felt252 = 1;
pub const KIND_PCS: felt252 = 2;
pub const KIND_COMMITTED_MATMUL: felt252 = 3;
const MAX_DIM: u32 = 0x100000;
const M31_PER_WORD: u64 = 8;

/// A public matrix (its shape is given by m, k, n): its packed words, as hashed into the
/// transcript, and its values, row-major, as canonical M31 integers in felt252, as the MLE
/// evaluation multiplies them.
#[derive(Copy, Drop)]
pub struct Matrix {
    pub words: Span<felt252>,
    pub values: Span<felt252>,
}

/// A decoded matmul proof: the statement C = A·B and the sum-check rounds.
#[derive(Copy, Drop)]
pub struct MatmulCalldata {
    /// The statement as it stands in the calldata (m, k, n and the three length-prefixed
    /// matrices): what the contract's `io_hash` hashes (docs/registry.md).
    pub io: Span<felt252>,
    pub m: u32,
    pub k: u32,
    pub n: u32,
    pub a: Matrix,
    pub b: Matrix,
    pub c: Matrix,
    pub rounds: Span<Span<QM31>>,
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

/// Kind 3: C = A·B with B a registered model's committed weight. `io` is the statement as it
/// stands in the calldata, from the model id to C (which weight of which model, B's hash and
/// root, m, k, n, A, C); `params` the contract's parameters for B's hash; `groups` the group
/// parts of B's opening read, as for kind 2.
#[derive(Copy, Drop)]
pub struct CommittedMatmulCalldata {
    pub io: Span<felt252>,
    pub model_id: felt252,
    pub weight: felt252,
    pub config_hash: felt252,
    pub params: PcsParams,
    pub root: u256,
    pub m: u32,
    pub k: u32,
    pub n: u32,
    pub b_vars: u32,
    pub a: Matrix,
    pub c: Matrix,
    pub rounds: Span<Span<QM31>>,
    pub b_value: QM31,
    pub front: OpeningFront,
    pub groups: Span<GroupOpenings>,
}

/// The proof kind after the version: which reader the calldata goes to.
pub fn read_kind(calldata: Span<felt252>) -> felt252 {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take(ref data)
}

pub fn read_matmul(calldata: Span<felt252>) -> MatmulCalldata {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_MATMUL, 'calldata.kind');
    let m = take_dim(ref data);
    let k = take_dim(ref data);
    let n = take_dim(ref data);
    let a = take_matrix(ref data, m, k);
    let b = take_matrix(ref data, k, n);
    let c = take_matrix(ref data, m, n);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let rounds = take_rounds(ref data, log2_padded(k));
    assert(data.is_empty(), 'calldata.extra');
    MatmulCalldata { io, m, k, n, a, b, c, rounds }
}

/// `whole`: the calldata of a complete proof (`verify`), every group part present; else a
/// session's first transaction, as many whole group parts as follow the front.
pub fn read_pcs(calldata: Span<felt252>, params: @PcsParams, whole: bool) -> PcsCalldata {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_PCS, 'calldata.kind');
    let (params, statement) = read_statement(ref data, params);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let mut poly_vars = array![];
    for poly in statement {
        poly_vars.append(*poly.n_vars);
    }
    let layout = BatchLayoutTrait::new(poly_vars.span(), params.log_arity);
    let aligned = aligned_point(statement).is_some();
    let front = read_front(ref data, params.hash, @layout, aligned, statement.len());
    let groups = read_groups(ref data, @params, @layout, 0, whole);
    PcsCalldata { io, params, statement, front, groups }
}

/// `whole` as for `read_pcs`. B's hash tag picks the contract's parameters.
pub fn read_committed_matmul(calldata: Span<felt252>, whole: bool) -> CommittedMatmulCalldata {
    let mut data = calldata;
    take_exact(ref data, VERSION, 'calldata.version');
    take_exact(ref data, KIND_COMMITTED_MATMUL, 'calldata.kind');
    let model_id = take(ref data);
    let weight = take(ref data);
    let config_hash = take(ref data);
    let (hash, root) = take_hash_and_root(ref data);
    let params = @params_for(hash).unwrap();
    let m = take_dim(ref data);
    let k = take_dim(ref data);
    let n = take_dim(ref data);
    let b_vars = log2_padded(k) + log2_padded(n);
    assert(b_vars <= *params.max_n_vars, 'pcs.size');
    let a = take_matrix(ref data, m, k);
    let c = take_matrix(ref data, m, n);
    let io = calldata.slice(2, calldata.len() - data.len() - 2);
    let rounds = take_rounds(ref data, log2_padded(k));
    let b_value = unpack_qm31(take(ref data));
    let layout = BatchLayoutTrait::new(array![b_vars].span(), *params.log_arity);
    let front = read_front(ref data, hash, @layout, true, 1);
    let groups = read_groups(ref data, params, @layout, 0, whole);
    CommittedMatmulCalldata {
        io,
        model_id,
        weight,
        config_hash,
        params: *params,
        root,
        m,
        k,
        n,
        b_vars,
        a,
        c,
        rounds,
        b_value,
        front,
        groups,
    }
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

/// A dimension, in [1, 2^20].
fn take_dim(ref data: Span<felt252>) -> u32 {
    take_u32_in(ref data, 1, MAX_DIM, 'calldata.dims')
}

/// `len ‖ words`: all `len` words are taken before any is checked, as in the Python reader.
fn take_matrix(ref data: Span<felt252>, rows: u32, cols: u32) -> Matrix {
    let count: u64 = rows.into() * cols.into();
    let n_words = (count + M31_PER_WORD - 1) / M31_PER_WORD;
    take_exact(ref data, n_words.into(), 'calldata.length');
    assert(n_words <= data.len().into(), 'calldata.truncated');
    let n_words: u32 = n_words.try_into().unwrap();
    let words = data.slice(0, n_words);
    data = data.slice(n_words, data.len() - n_words);
    Matrix { words, values: unpack_words(words, count) }
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

/// `n_rounds ‖ per round: DEGREE ‖ DEGREE coefficients`.
fn take_rounds(ref data: Span<felt252>, n_rounds: u32) -> Span<Span<QM31>> {
    take_exact(ref data, n_rounds.into(), 'sumcheck.round_count');
    let mut rounds = array![];
    for _ in 0..n_rounds {
        take_exact(ref data, DEGREE.into(), 'sumcheck.round_degree');
        let mut coefficients = array![];
        for _ in 0..DEGREE {
            coefficients.append(unpack_qm31(take(ref data)));
        }
        rounds.append(coefficients.span());
    }
    rounds.span()
}

/// Inverse of `QM31.pack(1)`: `felt >> 124` must be exactly 1, then each limb `< p`.
pub fn unpack_qm31(felt: felt252) -> QM31 {
    let (top, [l0, l1, l2, l3, a, b, c, d]) = split_felt252(felt);
    assert(top == 0 && l0 == 0 && l1 == 0 && l2 == 0 && l3 == 1, 'calldata.sentinel');
    let p: felt252 = P.into();
    assert(a != p && b != p && c != p && d != p, 'calldata.limb');
    QM31Trait::new(
        a.try_into().unwrap(), b.try_into().unwrap(), c.try_into().unwrap(), d.try_into().unwrap(),
    )
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
