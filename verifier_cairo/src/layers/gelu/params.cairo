//! GELU's public parameters (mirror of prover/layers/gelu/params.py): dims = (rows, cols,
//! f_in, b_in, f_out, b_out); only a table with a pinned commitment can be opened, so the
//! pinned family is the whole parameter rule (`gelu.params`).

use crate::merkle::hashers::HASH_BLAKE2S;
use crate::mle::log2_padded;
use crate::walk::tensor::TensorCommitment;
use super::table::{pinned_commitment, pinned_root, table_name};

#[derive(Copy, Drop, Debug)]
pub struct GeluParams {
    pub f_in: u32,
    pub b_in: u32,
    pub f_out: u32,
    pub b_out: u32,
}

#[generate_trait]
pub impl GeluParamsImpl of GeluParamsTrait {
    fn from_dims(dims: Span<u32>) -> GeluParams {
        GeluParams { f_in: *dims[2], b_in: *dims[3], f_out: *dims[4], b_out: *dims[5] }
    }

    /// Python `problem() is not None`: no pinned table for these parameters.
    fn problem(self: @GeluParams) -> bool {
        // Either hash: both pin the same family.
        pinned_root(*self.f_in, *self.b_in, *self.f_out, *self.b_out, HASH_BLAKE2S).is_none()
    }

    /// 2^(b_in−1): input g sits at table row g + 2^(b_in−1).
    fn offset(self: @GeluParams) -> u32 {
        crate::pcs::queries::pow2(*self.b_in - 1)
    }

    /// The pinned table's name and commitment for a witness hash, for parameters without a
    /// `problem`.
    fn table(self: @GeluParams, hash: felt252) -> (felt252, TensorCommitment) {
        let (f_in, b_in, f_out, b_out) = (*self.f_in, *self.b_in, *self.f_out, *self.b_out);
        (table_name(f_in, b_in, f_out, b_out), pinned_commitment(f_in, b_in, f_out, b_out, hash))
    }
}

/// n: the padded input has 2^n entries.
pub fn entry_vars(dims: Span<u32>) -> u32 {
    log2_padded(*dims[0]) + log2_padded(*dims[1])
}
