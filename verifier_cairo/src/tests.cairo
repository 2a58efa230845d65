//! Cairo unit tests. Expected values come from the Python implementation through the
//! generated modules: `vectors` (building blocks, tests/cairo_vectors.py), `pcs_vectors`
//! (openings, committed weights bound to the registry, sessions), `walk_vectors` (layer
//! proofs), `mha_vectors`, `lookup_vectors` (LogUp-GKR proofs) and `softmax_vectors`. Whole
//! proofs, honest and tampered, are generated tests there; the tests here use their data.

mod support;
mod test_blake2s;
mod test_calldata;
mod test_channel;
mod test_contract;
mod test_fields;
mod test_lookups;
mod test_merkle;
mod test_mle;
mod test_pcs;
mod test_records;
mod test_softmax;
mod test_sumcheck;
mod attn_vectors;
mod graph_support;
mod graph_vectors;
mod lookup_vectors;
mod mha_vectors;
mod pcs_vectors;
mod softmax_vectors;
mod vectors;
mod walk_support;
mod walk_vectors;
