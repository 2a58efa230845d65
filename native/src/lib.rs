//! Starknet Poseidon (the hades permutation over the Stark field, width 3) for Cairn.
//!
//! The transcript and matrix hashing call Poseidon tens of thousands of times per proof;
//! doing the work here, on felts passed as packed big-endian bytes, removes the per-call
//! Python overhead that dominated the prover.

use num_bigint::{BigInt, BigUint, Sign};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use starknet_crypto::{poseidon_hash_many, poseidon_permute_comp, Felt};

const FELT_BYTES: usize = 32;

/// The Stark prime 2^251 + 17 * 2^192 + 1, big-endian.
const PRIME_BE: [u8; FELT_BYTES] = {
    let mut p = [0u8; FELT_BYTES];
    p[0] = 0x08;
    p[7] = 0x11;
    p[31] = 0x01;
    p
};

/// Parses one canonical felt. `Felt::from_bytes_be` would silently reduce a value >= p,
/// making two different inputs hash alike, so such values are rejected here.
fn felt_from_be(bytes: &[u8; FELT_BYTES]) -> Option<Felt> {
    (*bytes < PRIME_BE).then(|| Felt::from_bytes_be(bytes))
}

fn felt_from_int(x: &BigInt, name: &str) -> PyResult<Felt> {
    let out_of_range = || PyValueError::new_err(format!("{name} is not in [0, Stark prime)"));
    let (sign, magnitude) = x.to_bytes_be();
    if sign == Sign::Minus || magnitude.len() > FELT_BYTES {
        return Err(out_of_range());
    }
    let mut bytes = [0u8; FELT_BYTES];
    bytes[FELT_BYTES - magnitude.len()..].copy_from_slice(&magnitude);
    felt_from_be(&bytes).ok_or_else(out_of_range)
}

fn felt_to_int(x: &Felt) -> BigUint {
    BigUint::from_bytes_be(&x.to_bytes_be())
}

/// The Starknet Poseidon permutation of the state [a, b, c], as a tuple of three ints.
///
/// Each input must be an int in [0, Stark prime); otherwise ValueError.
#[pyfunction]
fn hades(a: BigInt, b: BigInt, c: BigInt) -> PyResult<(BigUint, BigUint, BigUint)> {
    let mut state = [
        felt_from_int(&a, "a")?,
        felt_from_int(&b, "b")?,
        felt_from_int(&c, "c")?,
    ];
    poseidon_permute_comp(&mut state);
    Ok((
        felt_to_int(&state[0]),
        felt_to_int(&state[1]),
        felt_to_int(&state[2]),
    ))
}

/// Cairo's `poseidon_hash_span` of a felt sequence, as 32 big-endian bytes.
///
/// `felts` is the concatenation of 32-byte big-endian felts, each below the Stark prime;
/// the result is one 32-byte big-endian felt. The sponge appends 1, pads with 0 to an even
/// length and absorbs pairs into state words 0 and 1. Malformed input raises ValueError.
#[pyfunction]
fn hash_many<'py>(py: Python<'py>, felts: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    if felts.len() % FELT_BYTES != 0 {
        return Err(PyValueError::new_err(format!(
            "hash_many: input length {} is not a multiple of {FELT_BYTES}",
            felts.len()
        )));
    }
    let parsed = felts
        .chunks_exact(FELT_BYTES)
        .enumerate()
        .map(|(i, chunk)| {
            let bytes = chunk.try_into().expect("chunks_exact yields FELT_BYTES");
            felt_from_be(bytes).ok_or_else(|| {
                PyValueError::new_err(format!("hash_many: felt {i} is not below the Stark prime"))
            })
        })
        .collect::<PyResult<Vec<Felt>>>()?;
    // A 512x512 matrix is ~16k permutations: let other Python threads run meanwhile.
    let digest = py.detach(|| poseidon_hash_many(&parsed));
    Ok(PyBytes::new(py, &digest.to_bytes_be()))
}

/// Starknet Poseidon for Cairn: `hades` (the permutation) and `hash_many` (the sponge).
#[pymodule]
fn cairn_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hades, m)?)?;
    m.add_function(wrap_pyfunction!(hash_many, m)?)?;
    Ok(())
}
