//! Starknet Poseidon (the hades permutation over the Stark field, width 3), batched
//! Blake2s, and the prover's M31/QM31 field-vector kernels (`kernels`) for Cairn.
//!
//! The transcript and matrix hashing call Poseidon tens of thousands of times per proof;
//! doing the work here, on felts passed as packed big-endian bytes, removes the per-call
//! Python overhead that dominated the prover. Merkle trees hash millions of rows, so the
//! batched functions take all rows of one tree level in a single call (Blake2s rows 16 at a
//! time, `blake2s`). The PCS and the
//! sum-checks run millions of QM31 products per proof, which numpy cannot do without
//! several temporaries per product: `kernels` does them in place on the numpy arrays, in
//! loops compiled for AVX-512 or AVX2 when the CPU has them (`kernels::dispatch`).

mod blake2s;
mod field;
mod kernels;

use blake2::{Blake2s256, Digest};
use num_bigint::{BigInt, BigUint, Sign};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use starknet_crypto::{poseidon_hash, poseidon_hash_many, poseidon_permute_comp, Felt};
use std::sync::atomic::{AtomicU64, Ordering};

const FELT_BYTES: usize = 32;
const DIGEST_BYTES: usize = 32;

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

/// Parses concatenated 32-byte big-endian felts, each below the Stark prime.
fn parse_felts(felts: &[u8], caller: &str) -> PyResult<Vec<Felt>> {
    if felts.len() % FELT_BYTES != 0 {
        return Err(PyValueError::new_err(format!(
            "{caller}: input length {} is not a multiple of {FELT_BYTES}",
            felts.len()
        )));
    }
    felts
        .chunks_exact(FELT_BYTES)
        .enumerate()
        .map(|(i, chunk)| {
            let bytes = chunk.try_into().expect("chunks_exact yields FELT_BYTES");
            felt_from_be(bytes).ok_or_else(|| {
                PyValueError::new_err(format!("{caller}: felt {i} is not below the Stark prime"))
            })
        })
        .collect()
}

/// Checks that `len` bytes split into whole rows of `row_len` units of `unit` bytes.
fn check_rows(caller: &str, len: usize, row_len: usize, unit: usize) -> PyResult<()> {
    if row_len == 0 || len % (row_len * unit) != 0 {
        return Err(PyValueError::new_err(format!(
            "{caller}: input length {len} is not a whole number of rows of {row_len} x {unit} bytes"
        )));
    }
    Ok(())
}

/// Cairo's `poseidon_hash_span` of a felt sequence, as 32 big-endian bytes.
///
/// `felts` is the concatenation of 32-byte big-endian felts, each below the Stark prime;
/// the result is one 32-byte big-endian felt. The sponge appends 1, pads with 0 to an even
/// length and absorbs pairs into state words 0 and 1. Malformed input raises ValueError.
#[pyfunction]
fn hash_many<'py>(py: Python<'py>, felts: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let parsed = parse_felts(felts, "hash_many")?;
    // A 512x512 matrix is ~16k permutations: let other Python threads run meanwhile.
    let digest = py.detach(|| poseidon_hash_many(&parsed));
    Ok(PyBytes::new(py, &digest.to_bytes_be()))
}

/// M31 values packed per felt (STWO's Merkle-leaf packing, docs/merkle.md).
const M31_PER_FELT: usize = 8;
const M31_P: u32 = (1 << 31) - 1;

/// Packs up to 8 canonical M31 values into one felt: big-endian 31-bit limbs, plus
/// `count * 2^248` when the chunk is partial (count < 8).
fn pack_m31_chunk(values: &[u32]) -> Felt {
    let mut limbs = [0u64; 4]; // little-endian 64-bit limbs of the 256-bit word
    let count = values.len();
    for (i, &v) in values.iter().enumerate() {
        let offset = 31 * (count - 1 - i);
        let (k, shift) = (offset / 64, offset % 64);
        limbs[k] |= u64::from(v) << shift;
        if shift > 64 - 31 {
            limbs[k + 1] |= u64::from(v) >> (64 - shift);
        }
    }
    if count < M31_PER_FELT {
        limbs[3] |= (count as u64) << 56; // count * 2^248
    }
    let mut bytes = [0u8; FELT_BYTES];
    for (k, limb) in limbs.iter().enumerate() {
        bytes[8 * (3 - k)..8 * (4 - k)].copy_from_slice(&limb.to_be_bytes());
    }
    Felt::from_bytes_be(&bytes)
}

/// Poseidon Merkle leaves: `hash_many` of every row of `row_len` M31 values, packed 8 per
/// felt (a last partial felt gets its count at 2^248), as 32 big-endian bytes per row.
///
/// `words` holds the values as little-endian u32, each below p; one call hashes all leaves
/// of a tree (a 2^20-value commitment has ~2^18 of them, too many for a Python call each).
#[pyfunction]
fn hash_m31_rows<'py>(
    py: Python<'py>,
    words: &[u8],
    row_len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    check_rows("hash_m31_rows", words.len(), row_len, 4)?;
    let values: Vec<u32> = words
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("chunks_exact yields 4")))
        .collect();
    if let Some(i) = values.iter().position(|&v| v >= M31_P) {
        return Err(PyValueError::new_err(format!(
            "hash_m31_rows: value {i} is not a canonical M31"
        )));
    }
    let digests: Vec<u8> = py.detach(|| {
        values
            .chunks_exact(row_len)
            .flat_map(|row| {
                let felts: Vec<Felt> = row.chunks(M31_PER_FELT).map(pack_m31_chunk).collect();
                poseidon_hash_many(&felts).to_bytes_be()
            })
            .collect()
    });
    Ok(PyBytes::new(py, &digests))
}

/// `poseidon_hash(left, right)` of every consecutive pair of felts: one Merkle tree level.
#[pyfunction]
fn hash_pairs<'py>(py: Python<'py>, felts: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    check_rows("hash_pairs", felts.len(), 2, FELT_BYTES)?;
    let parsed = parse_felts(felts, "hash_pairs")?;
    let digests: Vec<u8> = py.detach(|| {
        parsed
            .chunks_exact(2)
            .flat_map(|pair| poseidon_hash(pair[0], pair[1]).to_bytes_be())
            .collect()
    });
    Ok(PyBytes::new(py, &digests))
}

/// Blake2s-256 of every row of `row_bytes` bytes, as 32 bytes each: Blake2s Merkle leaves
/// (rows of little-endian M31 words) and levels (rows left || right), in one call.
#[pyfunction]
fn blake2s_rows<'py>(
    py: Python<'py>,
    data: &[u8],
    row_bytes: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    check_rows("blake2s_rows", data.len(), row_bytes, 1)?;
    PyBytes::new_with(py, DIGEST_BYTES * (data.len() / row_bytes), |out| {
        py.detach(|| {
            kernels::dispatch(
                #[inline(always)]
                || blake2s::hash_rows(data, row_bytes, out),
            )
        });
        Ok(())
    })
}

/// The smallest nonce whose Blake2s proof-of-work hash H(prefixed ‖ LE64(nonce)) has at
/// least `n_bits` trailing zero bits in its first 8 bytes read little-endian (docs/channels.md).
///
/// `prefixed` is the channel's 32-byte H(LE32(0x12345678) ‖ 0^12 ‖ digest ‖ LE32(n_bits));
/// grinding 20 bits takes about a million hashes, which Python cannot do in a second.
#[pyfunction]
fn blake2s_grind(py: Python<'_>, prefixed: &[u8], n_bits: u32) -> PyResult<u64> {
    if prefixed.len() != 32 || n_bits >= 64 {
        return Err(PyValueError::new_err(
            "blake2s_grind: expected a 32-byte prefix and n_bits < 64",
        ));
    }
    let mask = (1u64 << n_bits) - 1;
    let mut head = Blake2s256::new();
    head.update(prefixed);
    Ok(py.detach(|| {
        least_nonce(|nonce| {
            let digest = head.clone().chain_update(nonce.to_le_bytes()).finalize();
            let low = u64::from_le_bytes(digest[..8].try_into().expect("32-byte digest"));
            low & mask == 0
        })
    }))
}

/// The smallest nonce whose Poseidon252 proof-of-work hash poseidon(prefixed, nonce) has at
/// least `n_bits` trailing zero bits in its low 128 bits (docs/channels.md).
///
/// `prefixed` is the channel's H(0x12345678, digest, n_bits) as 32 big-endian bytes; one
/// permutation per nonce here against two and a Python call each in the Python loop.
#[pyfunction]
fn poseidon_grind(py: Python<'_>, prefixed: &[u8], n_bits: u32) -> PyResult<u64> {
    let bytes: &[u8; FELT_BYTES] = prefixed
        .try_into()
        .ok()
        .filter(|_| n_bits < 64)
        .ok_or_else(|| {
            PyValueError::new_err("poseidon_grind: expected a 32-byte prefix and n_bits < 64")
        })?;
    let head = felt_from_be(bytes).ok_or_else(|| {
        PyValueError::new_err("poseidon_grind: prefix is not below the Stark prime")
    })?;
    let mask = (1u64 << n_bits) - 1;
    Ok(py.detach(|| {
        least_nonce(|nonce| {
            let digest = poseidon_hash(head, Felt::from(nonce)).to_bytes_be();
            let low = u64::from_be_bytes(digest[24..].try_into().expect("32-byte felt"));
            low & mask == 0
        })
    }))
}

/// The least nonce `found` accepts, searched on every core: thread t of T tries t, t + T, …
/// and stops once its next nonce exceeds the least found so far, so every nonce below the
/// result was tried and the result is the sequential search's.
fn least_nonce(found: impl Fn(u64) -> bool + Sync) -> u64 {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16) as u64;
    let least = AtomicU64::new(u64::MAX);
    std::thread::scope(|scope| {
        for first in 0..threads {
            let (least, found) = (&least, &found);
            scope.spawn(move || {
                let mut nonce = first;
                while nonce < least.load(Ordering::Relaxed) {
                    if found(nonce) {
                        least.fetch_min(nonce, Ordering::Relaxed);
                        break;
                    }
                    nonce += threads;
                }
            });
        }
    });
    let nonce = least.into_inner();
    assert!(nonce != u64::MAX, "a nonce exists below 2^64");
    nonce
}

/// Hashes for Cairn: `hades` (the Poseidon permutation), `hash_many` (the sponge), and the
/// batched Merkle helpers `hash_m31_rows`, `hash_pairs` and `blake2s_rows`, and the Blake2s
/// proof-of-work grinders `blake2s_grind` and `poseidon_grind`; then the field-vector kernels.
#[pymodule]
fn cairn_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hades, m)?)?;
    m.add_function(wrap_pyfunction!(hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(hash_m31_rows, m)?)?;
    m.add_function(wrap_pyfunction!(hash_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(blake2s_rows, m)?)?;
    m.add_function(wrap_pyfunction!(blake2s_grind, m)?)?;
    m.add_function(wrap_pyfunction!(poseidon_grind, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_add, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_sub, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_mul, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_mul_base, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_add_scaled_base, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_dot, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::mle_fold, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::mle_fold_combination, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::codeword_fold_combination, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::qm31_dot_base, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::eq_table, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::codeword_fold, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::encode, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::sumcheck_sums, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::pair_round, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::pair_fold, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::gate_sums, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::gate_fold, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::eq_add, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::m31_batch_inverse, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::fold_twiddles, m)?)?;
    Ok(())
}
