//! Cairo unit tests. Expected values come from the Python implementation through the
//! generated `vectors` module (tests/cairo_vectors.py); the honest and tampered matmul proofs
//! are generated tests there, the rest use its data here.

mod support;
mod test_blake2s;
mod test_calldata;
mod test_channel;
mod test_contract;
mod test_fields;
mod test_merkle;
mod test_mle;
mod test_pcs;
mod test_sumcheck;
mod mha_vectors;
mod pcs_vectors;
mod vectors;
mod walk_support;
mod walk_vectors;
