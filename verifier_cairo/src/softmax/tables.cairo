//! The fixed exp table's pinned commitment (mirror of prover/softmax/tables.py): the verifier
//! never reads the table's root from a proof, it is this protocol constant.

use crate::merkle::hashers::HASH_BLAKE2S;
use crate::walk::tensor::TensorCommitment;
use super::params::EXP_BITS;

/// Python `EXP_TABLE_ROOTS[19]`: the Blake2s Merkle root of exp_table(19) committed with
/// WITNESS_PCS, as a u256 (`merkle::hashers::read_root`: the digest's 32 bytes read
/// big-endian, as Python's `Commitment.root`).
pub const EXP_TABLE_ROOT_19: u256 =
    0x913E468859251E2CE8E1C0501BE6D1FF217A66AF70F02C7BB0E2EABB71109800;

/// `EXP_TABLE_ROOTS.get(theta)`: a root for θ = 19 only.
pub fn exp_table_root(theta: u32) -> Option<u256> {
    if theta == 19 {
        Some(EXP_TABLE_ROOT_19)
    } else {
        None
    }
}

/// The verifier's view of T's commitment (Python `pinned_exp_commitment`): the pinned root,
/// Blake2s, 2^16 values. θ must have a root (`SoftmaxParams::check`).
pub fn pinned_exp_commitment(theta: u32) -> TensorCommitment {
    TensorCommitment { hash: HASH_BLAKE2S, root: exp_table_root(theta).unwrap(), n_vars: EXP_BITS }
}

/// The table's name in the walk's witness opening, 'softmax.exp.<θ>' (Python
/// `exp_table_name`).
pub fn exp_table_name(theta: u32) -> felt252 {
    crate::pcs::stack::with_decimal('softmax.exp.', theta)
}
