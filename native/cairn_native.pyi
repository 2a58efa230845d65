"""Starknet Poseidon (hades over the Stark field, width 3, via starknet-crypto) and batched
Merkle hashing (Poseidon and Blake2s).

Felts are ints in [0, Stark prime); anything else raises ValueError. Also the prover's
field-vector kernels (M31/QM31 arithmetic, folds, eq tables, encoding, sum-check sums).
"""

import numpy as np

Quad = tuple[int, int, int, int]

def hades(a: int, b: int, c: int) -> tuple[int, int, int]:
    """The Poseidon permutation of the state [a, b, c]."""

def hash_many(felts: bytes) -> bytes:
    """Cairo's poseidon_hash_span of concatenated 32-byte big-endian felts, as 32 bytes.

    Appends 1, pads with 0 to an even length, absorbs pairs into state words 0 and 1.
    """

def hash_m31_rows(words: bytes, row_len: int) -> bytes:
    """Poseidon Merkle leaves: hash_many of each row of `row_len` M31 values.

    `words` are little-endian u32 values below p; each row is packed 8 per felt (big-endian
    31-bit limbs, a last partial felt gets count * 2^248). Returns 32 big-endian bytes per row.
    """

def hash_pairs(felts: bytes) -> bytes:
    """poseidon_hash(left, right) of each consecutive pair of 32-byte big-endian felts."""

def blake2s_rows(data: bytes, row_bytes: int) -> bytes:
    """Blake2s-256 of each row of `row_bytes` bytes, 32 bytes per row."""

def blake2s_grind(prefixed: bytes, n_bits: int) -> int:
    """Smallest nonce with >= n_bits trailing zeros in the first 8 bytes (LE) of
    Blake2s(prefixed ‖ LE64(nonce)); `prefixed` is 32 bytes, n_bits < 64."""

def poseidon_grind(prefixed: bytes, n_bits: int) -> int:
    """Smallest nonce with >= n_bits trailing zeros in poseidon(prefixed, nonce); `prefixed`
    is one felt as 32 big-endian bytes, n_bits < 64."""

# Field-vector kernels (native/src/kernels.rs). Arrays are numpy int64, C-contiguous,
# borrowed without a copy: QM31 vectors (N, 4), base vectors (N,), values canonical in [0, p);
# codewords are uint32 (N,).
# `out` is allocated by the caller and must not overlap an input. QM31 scalars are 4-tuples.
# Each does exactly the arithmetic of its numpy reference in tests/test_native_kernels.py.

def qm31_add(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """out = a + b elementwise; a or b may hold a single value (broadcast)."""

def qm31_sub(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """out = a − b elementwise; a or b may hold a single value (broadcast)."""

def qm31_mul(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """out = a·b elementwise; a or b may hold a single value (broadcast)."""

def qm31_mul_base(out: np.ndarray, a: np.ndarray, s: np.ndarray) -> None:
    """out = a·s for base-field s (N,); a has N values or one."""

def qm31_add_scaled_base(acc: np.ndarray, beta: Quad, s: np.ndarray) -> None:
    """acc += beta·s in place, for base-field s (N,), int64 or uint32."""

def qm31_dot(a: np.ndarray, b: np.ndarray) -> Quad:
    """Σ a_i·b_i over two QM31 vectors of one length."""

def mle_fold(out: np.ndarray, f: np.ndarray, r: Quad) -> None:
    """out = lo + (hi − lo)·r for f = [lo | hi] (2N values, out N)."""

def mle_fold_combination(
    out: np.ndarray, tables: list[np.ndarray], betas: list[Quad], r: Quad
) -> None:
    """out = mle_fold of Σ_k betas[k]·tables[k] (base tables of 2N values, out N) without
    building the sum."""

def codeword_fold_combination(
    out: np.ndarray, codewords: list[np.ndarray], betas: list[Quad], inv_2x: np.ndarray, r: Quad
) -> None:
    """out = codeword_fold of Σ_k betas[k]·codewords[k] (uint32 codewords of 2N values, out N,
    inv_2x N) without building the sum."""

def qm31_dot_base(a: np.ndarray, s: np.ndarray) -> Quad:
    """Σ a_i·s_i for a QM31 vector a and a base vector s of one length."""

def eq_table(out: np.ndarray, point: list[Quad], scale: Quad) -> None:
    """out[x] = scale·eq(point, x) for x in {0,1}^n, MSB-first (out has 2^n values)."""

def codeword_fold(out: np.ndarray, values: np.ndarray, inv_2x: np.ndarray, r: Quad) -> None:
    """out[j] = e + (o − e)·r, e = (W[2j] + W[2j+1])/2, o = (W[2j] − W[2j+1])·inv_2x[j], per
    block: values B·2m, out B·m, inv_2x m (shared by the blocks) or B·m."""

def encode(out: np.ndarray, message: np.ndarray, twiddles: np.ndarray, log_blowup: int) -> None:
    """The circle-code codeword (out: 2^(n+β) uint32 values) of 2^n message values; `twiddles`
    is every level's fold twiddles concatenated, smallest level (2^β values) first."""

def sumcheck_sums(tables: list[np.ndarray], products: list[list[int]], degree: int) -> list[Quad]:
    """Σ_x Π_(j in product) (lo_j + t·(hi_j − lo_j))(x) for every product and t = 0..degree,
    product-major; the tables are QM31 vectors of one even length, split into halves."""

def pair_round(w: np.ndarray, f: np.ndarray) -> tuple[Quad, Quad]:
    """A sum-check round of the product w·f (the first variable split off as the halves): c0
    and c2 of g(X) = Σ_x w(X, x)·f(X, x); w is QM31 (2h, 4), f base (2h,) or QM31 (2h, 4)."""

def pair_fold(
    w_out: np.ndarray, f_out: np.ndarray, w: np.ndarray, f: np.ndarray, r: Quad
) -> tuple[Quad, Quad]:
    """w_out, f_out = mle_fold of w and f at r (f base (2N,) or QM31 (2N, 4), outputs (N, 4));
    returns pair_round(w_out, f_out) from the same pass (zeros when N = 1)."""

def gate_sums(eq: np.ndarray, tables: list[np.ndarray]) -> tuple[Quad, Quad, Quad]:
    """A LogUp-GKR layer round: h(t) = Σ_x eq(x)·(u·q1 + p1·q0)(t, x) at t = 0, 1, 2 for tables
    [u, q0, q1] or [u, q0, q1, p1] (2h values, split into halves; no p1: all ones), eq h."""

def gate_fold(
    outs: list[np.ndarray], eq_out: np.ndarray, eq: np.ndarray, tables: list[np.ndarray], s: Quad
) -> tuple[Quad, Quad, Quad]:
    """outs = mle_fold of each table at s (h values each), eq_out = the sum of eq's halves
    (h/2); returns gate_sums of the folded tables from the same pass (zeros when h = 1)."""

def eq_add(out: np.ndarray, point: list[Quad], scale: Quad) -> None:
    """out[x] += scale·eq(point, x) for x in {0,1}^n, MSB-first (out has 2^n values)."""

def m31_batch_inverse(out: np.ndarray, x: np.ndarray) -> None:
    """out = 1/x for every M31 value (Montgomery's trick); ZeroDivisionError on a zero."""

def fold_twiddles(out: np.ndarray, h: tuple[int, int], log_bottom: int) -> None:
    """The fold twiddles of X_ℓ for ℓ = log_bottom + 1 … L (out has 2^L − 2^log_bottom
    values, smallest level first; level ℓ is X_ℓ[2j], j < 2^(ℓ−1)), h of order 2^(L+2)."""
