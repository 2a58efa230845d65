//! The fixed exp table's pinned commitment (mirror of prover/softmax/tables.py): the verifier
//! never reads the table's root from a proof, it is this protocol constant.

use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON};
use crate::walk::tensor::TensorCommitment;
use super::params::EXP_BITS;

/// Python `EXP_TABLE_ROOTS[θ][hash]`: the Merkle root of exp_table(θ) committed with
/// `WITNESS_PCS[hash]`, as a u256 (Python's `Commitment.root`); a root for θ = 19 only.
pub fn exp_table_root(theta: u32, hash: felt252) -> Option<u256> {
    if theta != 19 {
        return None;
    }
    if hash == HASH_BLAKE2S {
        Some(0x913E468859251E2CE8E1C0501BE6D1FF217A66AF70F02C7BB0E2EABB71109800)
    } else if hash == HASH_POSEIDON {
        Some(0x007439A6231CAD2FCF1F374C726ABC7C4F7D7FEF945979604151AF5870EE3166)
    } else {
        None
    }
}

/// The verifier's view of T's commitment (Python `pinned_exp_commitment`): the pinned root for
/// the layer's witness hash, 2^16 values. θ must have a root (`SoftmaxParams::check`) and the
/// hash be a witness opening's (`check_stacks`).
pub fn pinned_exp_commitment(theta: u32, hash: felt252) -> TensorCommitment {
    TensorCommitment { hash, root: exp_table_root(theta, hash).unwrap(), n_vars: EXP_BITS }
}

/// The table's name in the walk's witness opening, 'softmax.exp.<θ>' (Python
/// `exp_table_name`).
pub fn exp_table_name(theta: u32) -> felt252 {
    crate::pcs::stack::with_decimal('softmax.exp.', theta)
}
