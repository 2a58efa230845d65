//! The readers' building blocks; whole-proof rejections are the generated tests of
//! `walk_vectors` (`rejects_*`) and `pcs_vectors` (`pcs_tampered_*`, `committed_tampered_*`).

use crate::calldata::{unpack_qm31, unpack_words};
use crate::fields::qm31::QM31Trait;
use crate::packing::split_felt252;
use super::vectors::{packing_cases, qm31_cases};

#[test]
fn unpacks_python_packing() {
    for case in packing_cases() {
        assert_eq!(unpack_words(case.words, case.values.len().into()), case.values);
    }
}

#[test]
fn qm31_round_trips_through_its_felt() {
    for case in qm31_cases() {
        assert_eq!(unpack_qm31(case.x.pack(1)), case.x);
        assert_eq!(unpack_qm31(case.product.pack(1)), case.product);
    }
}

#[test]
fn split_edges() {
    // p_stark - 1 = 2^251 + 17·2^192: top 8, and 17·2^6 in the limb of bits 186..216.
    let (top, limbs) = split_felt252(-1);
    assert_eq!(top, 8);
    assert_eq!(limbs, [0, 1088, 0, 0, 0, 0, 0, 0]);
    // Bits 127 and 128 sit in l3 (bits 124..154), on both sides of the u128 boundary.
    let (top, limbs) = split_felt252(0x180000000000000000000000000000000);
    assert_eq!(top, 0);
    assert_eq!(limbs, [0, 0, 0, 24, 0, 0, 0, 0]);
}
