//! Public parameters of the PCS (mirror of prover/pcs/params.py). The contract compiles
//! `POSEIDON_PARAMS` and `BLAKE2S_PARAMS` in, so every count the verifier checks (rounds,
//! layers, queries, grinding) follows from them and from the public sizes, never from a proof.

use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON};

#[derive(Copy, Drop, Debug, PartialEq, Serde)]
pub struct PcsParams {
    /// The Merkle hash of every tree: `HASH_POSEIDON` or `HASH_BLAKE2S` (a statement's tag).
    pub hash: felt252,
    /// Rate 2^-log_blowup.
    pub log_blowup: u32,
    /// 2^log_arity values folded per committed layer (a Merkle leaf holds all of them).
    pub log_arity: u32,
    pub n_queries: u32,
    pub pow_bits: u32,
    /// The largest n_vars these parameters open with the target soundness; Python derives it
    /// from the soundness formula (`PcsParams.max_n_vars`), the generated tests check it.
    pub max_n_vars: u32,
}

/// Python `POSEIDON_PARAMS`: rate 1/4, 16 values per leaf, 120 queries, 16 bits of grinding
/// (97.4 bits at 2^16, 96.4 at 2^23; docs/pcs.md, "Soundness").
pub const POSEIDON_PARAMS: PcsParams = PcsParams {
    hash: HASH_POSEIDON, log_blowup: 2, log_arity: 4, n_queries: 120, pow_bits: 16, max_n_vars: 23,
};

/// Python `BLAKE2S_PARAMS`: the same numbers over Blake2s trees.
pub const BLAKE2S_PARAMS: PcsParams = PcsParams {
    hash: HASH_BLAKE2S, log_blowup: 2, log_arity: 4, n_queries: 120, pow_bits: 16, max_n_vars: 23,
};

/// Python `WITNESS_PCS[hash]`: the witness opening's parameters for the hash of its trees (the
/// prover's choice, read off the witness commitments), on a Blake2s transcript, with 20 bits
/// of grinding (docs/claim-walk.md, step 10); None for a hash no witness opening has.
pub fn witness_params(hash: felt252) -> Option<PcsParams> {
    if hash != HASH_POSEIDON && hash != HASH_BLAKE2S {
        return None;
    }
    Some(
        PcsParams {
            hash, log_blowup: 2, log_arity: 4, n_queries: 120, pow_bits: 20, max_n_vars: 24,
        },
    )
}

/// The contract's parameters for a statement's hash tag; None for an unknown tag.
pub fn params_for(hash: felt252) -> Option<PcsParams> {
    if hash == HASH_POSEIDON {
        Some(POSEIDON_PARAMS)
    } else if hash == HASH_BLAKE2S {
        Some(BLAKE2S_PARAMS)
    } else {
        None
    }
}

/// The folding levels (s, e] done between two committed layers, the first group full; the
/// word at each s > 0 is committed, the one at the last e = n_vars is the final value.
/// n_vars = 0 gives one empty group (0, 0).
pub fn fold_groups(n_vars: u32, log_arity: u32) -> Span<(u32, u32)> {
    let mut groups = array![];
    let mut start = 0;
    while start + log_arity < n_vars {
        groups.append((start, start + log_arity));
        start += log_arity;
    }
    groups.append((start, n_vars));
    groups.span()
}

/// A polynomial's codeword is cut into leaves of 2^min(a, n) values: the most one query needs
/// from it (a polynomial folds at most a levels before the next layer).
pub fn poly_log_leaf(n_vars: u32, params: @PcsParams) -> u32 {
    core::cmp::min(*params.log_arity, n_vars)
}
