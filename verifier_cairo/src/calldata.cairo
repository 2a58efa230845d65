//! Reader of the calldata layout of docs/calldata.md (mirror of serializer/calldata.py
//! `decode`): it checks, in the same order as the Python reader, everything a well-formed proof
//! must satisfy before any verification starts, and panics with the name of the first failure.
//! Like the Python reader it expects exactly log2(next_pow2(k)) rounds of `DEGREE`
//! coefficients, and reports a mismatch with the sum-check's names.

use crate::fields::m31::P;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::matmul::DEGREE;
use crate::mle::log2_padded;
use crate::packing::split_felt252;

pub const VERSION: felt252 = 1;
pub const KIND_MATMUL: felt252 = 1;
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

fn take(ref data: Span<felt252>) -> felt252 {
    match data.pop_front() {
        Some(x) => *x,
        None => core::panic_with_felt252('calldata.truncated'),
    }
}

fn take_exact(ref data: Span<felt252>, expected: felt252, reason: felt252) {
    assert(take(ref data) == expected, reason);
}

/// A dimension, in [1, 2^20].
fn take_dim(ref data: Span<felt252>) -> u32 {
    let dim: u32 = match take(ref data).try_into() {
        Some(d) => d,
        None => core::panic_with_felt252('calldata.dims'),
    };
    assert(1 <= dim && dim <= MAX_DIM, 'calldata.dims');
    dim
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
