//! The softmax pieces and the witness stacks: comparisons the generated tests use
//! (`softmax_vectors`), and the properties that need no Python value.

use crate::fields::qm31::QM31Trait;
use crate::pcs::proof::Claim;
use crate::pcs::stack::{StackLayoutTrait, name_key, stack_names, with_decimal, with_suffix};
use crate::softmax::params::{SoftmaxParams, SoftmaxParamsTrait, norm_bits};
use crate::softmax::relations::{Key, KeyTrait};
use crate::walk::layer::ClaimsOn;
use crate::walk::tensor::TensorCommitment;
use super::support::qm31;

/// Equal names, and per name the same claims (points and values) in the same order.
pub fn assert_claims_on_eq(actual: Span<ClaimsOn>, expected: Span<ClaimsOn>) {
    assert_eq!(actual.len(), expected.len());
    let mut i = 0;
    for on in expected {
        let got = *actual[i];
        assert_eq!(got.name, *on.name);
        assert_claims_eq(got.claims, *on.claims);
        i += 1;
    }
}

fn assert_claims_eq(actual: Span<Claim>, expected: Span<Claim>) {
    assert_eq!(actual.len(), expected.len());
    let mut i = 0;
    for c in expected {
        assert_eq!(*actual[i].point, *c.point);
        assert_eq!(*actual[i].value, *c.value);
        i += 1;
    }
}

pub fn assert_commitments_eq(actual: Span<TensorCommitment>, expected: Span<TensorCommitment>) {
    assert_eq!(actual.len(), expected.len());
    let mut i = 0;
    for c in expected {
        let got = *actual[i];
        assert_eq!((got.hash, got.root, got.n_vars), (*c.hash, *c.root, *c.n_vars));
        i += 1;
    }
}

#[test]
fn short_string_names() {
    assert_eq!(with_suffix('softmax', '.commitment', 11), 'softmax.commitment');
    assert_eq!(with_decimal('softmax.', 0), 'softmax.0');
    assert_eq!(with_decimal('softmax.', 7), 'softmax.7');
    assert_eq!(with_decimal('softmax.', 10), 'softmax.10');
    assert_eq!(with_decimal('softmax.exp.', 19), 'softmax.exp.19');
    assert_eq!(with_decimal('x', 4294967295), 'x4294967295');
    assert_eq!(with_decimal('', 305), '305');
}

#[test]
fn stack_names_count_in_decimal() {
    let mut names = array![];
    let mut sizes = array![];
    for i in 0..12_u32 {
        names.append(with_decimal('c', i));
        sizes.append(3);
    }
    let layout = StackLayoutTrait::of_columns(names.span(), sizes.span(), 3).unwrap();
    let names = stack_names('softmax', @layout);
    assert_eq!(names.len(), 12);
    assert_eq!((*names[0], *names[9], *names[11]), ('softmax.0', 'softmax.9', 'softmax.11'));
}

/// A column's stack point: its offset's bits above its own variables (offset 2^3·3 of a
/// 2^3 column in a 2^5 stack: prefix 1, 1).
#[test]
fn stack_point_prefixes_the_offset_bits() {
    let names = array!['a', 'b', 'c', 'd'].span();
    let sizes = array![4, 3, 3, 3].span();
    let layout = StackLayoutTrait::of_columns(names, sizes, 5).unwrap();
    assert_eq!(layout.names, array!['a', 'b', 'c', 'd'].span());
    assert_eq!(layout.offsets, array![0, 16, 24, 0].span());
    assert_eq!(layout.stacks, array![0, 0, 0, 1].span());
    assert_eq!(layout.stack_vars, array![5, 3].span());
    let (zero, one) = (QM31Trait::zero(), QM31Trait::one());
    let r = array![qm31(5, 6, 7, 8), qm31(1, 2, 3, 4), qm31(9, 9, 9, 9)].span();
    let mut expected = array![one, one];
    expected.append_span(r);
    assert_eq!(layout.point('c', r), expected.span());
    assert_eq!(layout.point('d', r), r);
    let x = qm31(1, 1, 1, 1);
    let a = array![x, x, x, x].span();
    assert_eq!(layout.point('a', a), array![zero, x, x, x, x].span());
}

#[test]
#[should_panic(expected: ('stack.column',))]
fn stack_point_of_an_unknown_column() {
    let layout = StackLayoutTrait::of_columns(array!['a'].span(), array![1].span(), 2).unwrap();
    layout.point('b', array![QM31Trait::one()].span());
}

#[test]
fn key_of_tuple() {
    let betas = array![qm31(2, 0, 0, 0), qm31(3, 0, 0, 0)].span();
    let key = Key { alpha: qm31(10, 0, 0, 0), betas };
    // 10 − 1 − 2·4 − 3·5 = −14
    let value = key.of_tuple(qm31(1, 0, 0, 0), array![qm31(4, 0, 0, 0), qm31(5, 0, 0, 0)].span());
    assert_eq!(value, qm31(0x7fffffff - 14, 0, 0, 0));
    let norm = Key { alpha: qm31(3, 1, 4, 1), betas: array![].span() };
    assert_eq!(norm.of_tuple(qm31(1, 1, 1, 1), array![].span()), qm31(2, 0, 3, 0));
}

#[test]
fn norm_bits_is_the_bit_length_of_two_eps() {
    assert_eq!(norm_bits(0), 0);
    assert_eq!(norm_bits(1), 2);
    assert_eq!(norm_bits(194), 9);
    assert_eq!(norm_bits(255), 9);
    assert_eq!(norm_bits(256), 10);
    assert_eq!(norm_bits(4294967295), 33);
}

/// θ = 2^32 − 1: Python refuses it by the wrap rule (ŝ·2^θ > 2^30), after building a 2^32-bit
/// integer; here S + θ is a u64 sum.
#[test]
#[should_panic(expected: ('softmax.params',))]
fn params_refused_theta_u32_max() {
    let params = SoftmaxParams { f: 19, c: 367, theta: 4294967295, eps: 194, k_n: 9 };
    params.check(128, 32);
}

/// Names left-aligned in 31 bytes (Python: the name's bytes, zero-padded, big-endian): every
/// byte length of the u128 halves' boundaries.
#[test]
fn name_keys_left_align_the_bytes() {
    assert_eq!(name_key(''), 0);
    assert_eq!(name_key('a'), 0x61000000000000000000000000000000000000000000000000000000000000);
    let k15 = 0x6162636465666768696a6b6c6d6e6f00000000000000000000000000000000;
    assert_eq!(name_key('abcdefghijklmno'), k15);
    let k16 = 0x6162636465666768696a6b6c6d6e6f70000000000000000000000000000000;
    assert_eq!(name_key('abcdefghijklmnop'), k16);
    let k17 = 0x6162636465666768696a6b6c6d6e6f70710000000000000000000000000000;
    assert_eq!(name_key('abcdefghijklmnopq'), k17);
    let k31 = 0x6162636465666768696a6b6c6d6e6f707172737475767778797a3031323334;
    assert_eq!(name_key('abcdefghijklmnopqrstuvwxyz01234'), k31);
    assert!(name_key('softmax.10') < name_key('softmax.2'));
    assert!(name_key('B') < name_key('a') && name_key('a') < name_key('aa'));
}
