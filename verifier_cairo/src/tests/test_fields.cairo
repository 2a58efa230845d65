use crate::fields::cm31::CM31Trait;
use crate::fields::m31::M31Trait;
use crate::fields::qm31::QM31Trait;
use super::support::{m31, qm31};
use super::vectors::{cm31_cases, m31_cases, qm31_cases};

#[test]
fn m31_matches_python() {
    for case in m31_cases() {
        assert_eq!(case.x + case.y, case.sum);
        assert_eq!(case.x - case.y, case.difference);
        assert_eq!(case.x * case.y, case.product);
        assert_eq!(-case.x, case.negation);
        assert_eq!(case.x.inverse(), case.inverse);
        assert_eq!(case.x * case.inverse, M31Trait::one());
    }
}

#[test]
fn cm31_matches_python() {
    for case in cm31_cases() {
        assert_eq!(case.x + case.y, case.sum);
        assert_eq!(case.x - case.y, case.difference);
        assert_eq!(case.x * case.y, case.product);
        assert_eq!(-case.x, case.negation);
        assert_eq!(case.x.inverse(), case.inverse);
    }
}

#[test]
fn qm31_matches_python() {
    for case in qm31_cases() {
        assert_eq!(case.x + case.y, case.sum);
        assert_eq!(case.x - case.y, case.difference);
        assert_eq!(case.x * case.y, case.product);
        assert_eq!(-case.x, case.negation);
        assert_eq!(case.x.inverse(), case.inverse);
        assert_eq!(case.x * case.inverse, QM31Trait::one());
    }
}

#[test]
fn reduce_takes_any_felt() {
    // 2^31 = 1 (mod p), so 2^128 = 2^4 and 2^128 - 1 = 15.
    assert_eq!(M31Trait::reduce(0xffffffffffffffffffffffffffffffff), m31(15));
    assert_eq!(M31Trait::reduce(0x7fffffff), m31(0));
    assert_eq!(M31Trait::reduce(0x100000000000000000000000000000000), m31(16));
    // P − 1 = 2^251 + 17·2^192 ≡ 2^3 + 17·2^6 = 1096, the largest felt252.
    assert_eq!(M31Trait::reduce(-1), m31(1096));
    // A multiple of p plus 5 above 2^128: both halves of the split in use.
    assert_eq!(M31Trait::reduce(0x7fffffff * 0x123456789abcdef0123456789abcdef0 + 5), m31(5));
}

#[test]
#[should_panic(expected: ('m31.not_canonical',))]
fn m31_rejects_p() {
    m31(0x7fffffff);
}

#[test]
#[should_panic(expected: ('m31.inverse_of_zero',))]
fn m31_inverse_of_zero() {
    m31(0).inverse();
}

#[test]
#[should_panic(expected: ('qm31.inverse_of_zero',))]
fn qm31_inverse_of_zero() {
    qm31(0, 0, 0, 0).inverse();
}

#[test]
fn qm31_pack_is_stwo_layout() {
    // 1‖a‖b‖c‖d in 31-bit limbs.
    assert_eq!(qm31(1, 2, 3, 4).pack(1), 0x10000000200000008000000180000004);
}
