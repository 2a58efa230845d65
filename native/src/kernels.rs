//! Field-vector kernels for the prover's hot loops: QM31 vector arithmetic, MLE and codeword
//! folds, eq tables, the circle-code encoding and sum-check round sums.
//!
//! Arrays are the caller's numpy int64 arrays, borrowed through the buffer protocol (no copy):
//! QM31 vectors are (N, 4) C-contiguous, base vectors (N,), every value canonical in [0, p)
//! (non-canonical input gives unspecified values, never undefined behaviour). Results go into
//! an `out` array the caller allocated, which must not overlap any input. Each kernel releases
//! the GIL and does exactly the arithmetic of its numpy reference in tests/test_native_kernels.py.

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyValueError, PyZeroDivisionError};
use pyo3::prelude::*;

use crate::field::{add, half, mul, qadd, qmul, qmul_base, qsub, sub, Acc, Qm31, P, ZERO};

type Quad = (u64, u64, u64, u64);

/// Runs a kernel's loop without the GIL, compiled for AVX-512 or AVX2 when the CPU has them
/// (checked at run time, once per call): LLVM vectorizes the field arithmetic of the loops
/// inlined into these entry points (QM31 products 2–4× faster than with the baseline SSE2).
fn detach<T: Send, F: Send + FnOnce() -> T>(py: Python<'_>, f: F) -> T {
    py.detach(|| dispatch(f))
}

/// `f()` compiled for the best instruction set the CPU has (see `detach`).
pub fn dispatch<T, F: FnOnce() -> T>(f: F) -> T {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx2,bmi1,bmi2,fma")]
        fn v4<T, F: FnOnce() -> T>(f: F) -> T {
            f()
        }
        #[target_feature(enable = "avx2,bmi1,bmi2,fma")]
        fn v3<T, F: FnOnce() -> T>(f: F) -> T {
            f()
        }
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("bmi2")
        {
            // SAFETY: the CPU has every feature v4 is compiled for.
            return unsafe { v4(f) };
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("bmi2") {
            // SAFETY: the CPU has every feature v3 is compiled for.
            return unsafe { v3(f) };
        }
    }
    f()
}

fn quad(q: Quad) -> Qm31 {
    [q.0 % P, q.1 % P, q.2 % P, q.3 % P]
}

fn quad_out(q: Qm31) -> Quad {
    (q[0], q[1], q[2], q[3])
}

fn err(caller: &str, msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{caller}: {msg}"))
}

/// A C-contiguous buffer's items as `U`, a type of the same size and alignment (u64 for int64).
fn contiguous<'a, T: Element, U>(buf: &'a PyBuffer<T>, caller: &str) -> PyResult<&'a [U]> {
    if !buf.is_c_contiguous() {
        return Err(err(caller, "arrays must be C-contiguous"));
    }
    assert!(size_of::<T>() == size_of::<U>() && align_of::<T>() == align_of::<U>());
    // SAFETY: the buffer is held for the call, C-contiguous, of item_count aligned items of
    // T's layout, which U shares (asserted).
    Ok(unsafe { std::slice::from_raw_parts(buf.buf_ptr() as *const U, buf.item_count()) })
}

/// A C-contiguous int64 buffer's values, read as u64.
fn values<'a>(buf: &'a PyBuffer<i64>, caller: &str) -> PyResult<&'a [u64]> {
    contiguous(buf, caller)
}

/// A C-contiguous uint32 buffer's values (a codeword: half the memory of int64).
fn words<'a>(buf: &'a PyBuffer<u32>, caller: &str) -> PyResult<&'a [u32]> {
    contiguous(buf, caller)
}

/// `out overlaps an input` unless the memory of `out` is disjoint from every input's.
fn disjoint<T, U>(out: &[T], inputs: &[&[U]], caller: &str) -> PyResult<()> {
    let span = |ptr: usize, bytes: usize| (ptr, ptr + bytes);
    let (start, end) = span(out.as_ptr() as usize, size_of_val(out));
    for input in inputs {
        let (s, e) = span(input.as_ptr() as usize, size_of_val(*input));
        if s < end && start < e {
            return Err(err(caller, "out overlaps an input"));
        }
    }
    Ok(())
}

/// The writable output's items as `U`: C-contiguous, and disjoint from every input (so `&mut`
/// aliases none).
fn writable<'a, T: Element, U, V>(
    buf: &'a mut PyBuffer<T>,
    inputs: &[&[V]],
    caller: &str,
) -> PyResult<&'a mut [U]> {
    if buf.readonly() {
        return Err(err(caller, "out is read-only"));
    }
    let v: &[U] = contiguous(buf, caller)?;
    disjoint(v, inputs, caller)?;
    // SAFETY: as `contiguous`; the memory is writable and aliased by no input slice.
    Ok(unsafe { std::slice::from_raw_parts_mut(v.as_ptr() as *mut U, v.len()) })
}

fn quads<'a>(buf: &'a PyBuffer<i64>, caller: &str) -> PyResult<&'a [Qm31]> {
    let v = values(buf, caller)?;
    if !v.len().is_multiple_of(4) {
        return Err(err(caller, "a QM31 array needs a trailing axis of 4"));
    }
    // SAFETY: [u64; 4] has the alignment of u64 and 4 times its size.
    Ok(unsafe { std::slice::from_raw_parts(v.as_ptr() as *const Qm31, v.len() / 4) })
}

/// The writable output: C-contiguous, and disjoint from every input (so `&mut` aliases none).
fn out_quads<'a, V>(
    buf: &'a mut PyBuffer<i64>,
    inputs: &[&[V]],
    caller: &str,
) -> PyResult<&'a mut [Qm31]> {
    let v = out_values(buf, inputs, caller)?;
    if !v.len().is_multiple_of(4) {
        return Err(err(caller, "a QM31 array needs a trailing axis of 4"));
    }
    // SAFETY: [u64; 4] has the alignment of u64 and 4 times its size.
    Ok(unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut Qm31, v.len() / 4) })
}

fn flat(q: &[Qm31]) -> &[u64] {
    // SAFETY: a slice of [u64; 4] is a slice of 4x as many u64.
    unsafe { std::slice::from_raw_parts(q.as_ptr() as *const u64, 4 * q.len()) }
}

/// Checks that an operand has n elements or one (a scalar, broadcast); true for n elements.
fn full(x: &[Qm31], n: usize, caller: &str) -> PyResult<bool> {
    if x.len() != n && x.len() != 1 {
        return Err(err(
            caller,
            format!("{} elements, expected {n} or 1", x.len()),
        ));
    }
    Ok(x.len() == n)
}

/// out = op(a, b) elementwise, a scalar operand broadcast; generic so `op` is inlined into
/// each of the four loops.
fn binary<F: Fn(&Qm31, &Qm31) -> Qm31 + Sync>(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    a: PyBuffer<i64>,
    b: PyBuffer<i64>,
    caller: &str,
    op: F,
) -> PyResult<()> {
    let (a, b) = (quads(&a, caller)?, quads(&b, caller)?);
    let out = out_quads(&mut out, &[flat(a), flat(b)], caller)?;
    let n = out.len();
    let (a_full, b_full) = (full(a, n, caller)?, full(b, n, caller)?);
    detach(
        py,
        #[inline(always)]
        || match (a_full, b_full) {
            (true, true) => {
                for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
                    *o = op(x, y);
                }
            }
            (true, false) => {
                for (o, x) in out.iter_mut().zip(a) {
                    *o = op(x, &b[0]);
                }
            }
            (false, true) => {
                for (o, y) in out.iter_mut().zip(b) {
                    *o = op(&a[0], y);
                }
            }
            (false, false) => out.fill(op(&a[0], &b[0])),
        },
    );
    Ok(())
}

/// out = a + b, elementwise (either operand may be a single value).
#[pyfunction]
pub fn qm31_add(
    py: Python<'_>,
    out: PyBuffer<i64>,
    a: PyBuffer<i64>,
    b: PyBuffer<i64>,
) -> PyResult<()> {
    binary(py, out, a, b, "qm31_add", qadd)
}

/// out = a − b, elementwise (either operand may be a single value).
#[pyfunction]
pub fn qm31_sub(
    py: Python<'_>,
    out: PyBuffer<i64>,
    a: PyBuffer<i64>,
    b: PyBuffer<i64>,
) -> PyResult<()> {
    binary(py, out, a, b, "qm31_sub", qsub)
}

/// out = a·b, elementwise (either operand may be a single value).
#[pyfunction]
pub fn qm31_mul(
    py: Python<'_>,
    out: PyBuffer<i64>,
    a: PyBuffer<i64>,
    b: PyBuffer<i64>,
) -> PyResult<()> {
    binary(py, out, a, b, "qm31_mul", qmul)
}

/// out = a·s for base-field s (N,): a of N elements or one (then out = a scaled by every s).
#[pyfunction]
pub fn qm31_mul_base(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    a: PyBuffer<i64>,
    s: PyBuffer<i64>,
) -> PyResult<()> {
    let caller = "qm31_mul_base";
    let (a, s) = (quads(&a, caller)?, values(&s, caller)?);
    let out = out_quads(&mut out, &[flat(a), s], caller)?;
    if s.len() != out.len() {
        return Err(err(
            caller,
            format!("{} scalars for {} outputs", s.len(), out.len()),
        ));
    }
    if full(a, out.len(), caller)? {
        detach(
            py,
            #[inline(always)]
            || {
                for ((o, x), &v) in out.iter_mut().zip(a).zip(s) {
                    *o = qmul_base(x, v);
                }
            },
        );
    } else {
        detach(
            py,
            #[inline(always)]
            || {
                for (o, &v) in out.iter_mut().zip(s) {
                    *o = qmul_base(&a[0], v);
                }
            },
        );
    }
    Ok(())
}

/// A base-field vector as a kernel reads it: int64 (a message) or uint32 (a codeword).
#[derive(FromPyObject)]
pub enum BaseVector {
    Wide(PyBuffer<i64>),
    Narrow(PyBuffer<u32>),
}

/// acc += beta·s in place, for base-field s (N,) (int64 or uint32) and one QM31 beta: a
/// polynomial (message or codeword) entering the PCS fold with its coefficient, without an
/// (N, 4) temporary.
#[pyfunction]
pub fn qm31_add_scaled_base(
    py: Python<'_>,
    acc: PyBuffer<i64>,
    beta: Quad,
    s: BaseVector,
) -> PyResult<()> {
    let caller = "qm31_add_scaled_base";
    match s {
        BaseVector::Wide(s) => add_scaled(py, acc, quad(beta), values(&s, caller)?, caller),
        BaseVector::Narrow(s) => add_scaled(py, acc, quad(beta), words(&s, caller)?, caller),
    }
}

fn add_scaled<T: Copy + Into<u64> + Sync>(
    py: Python<'_>,
    mut acc: PyBuffer<i64>,
    beta: Qm31,
    s: &[T],
    caller: &str,
) -> PyResult<()> {
    let acc = out_quads(&mut acc, &[s], caller)?;
    if s.len() != acc.len() {
        return Err(err(
            caller,
            format!("{} scalars for {} values", s.len(), acc.len()),
        ));
    }
    detach(
        py,
        #[inline(always)]
        || {
            for (o, &v) in acc.iter_mut().zip(s) {
                *o = qadd(o, &qmul_base(&beta, v.into()));
            }
        },
    );
    Ok(())
}

/// Σ a_i·b_i over equal-length QM31 vectors (a weighted sum without a product vector).
#[pyfunction]
pub fn qm31_dot(py: Python<'_>, a: PyBuffer<i64>, b: PyBuffer<i64>) -> PyResult<Quad> {
    let caller = "qm31_dot";
    let (a, b) = (quads(&a, caller)?, quads(&b, caller)?);
    if a.len() != b.len() {
        return Err(err(caller, format!("lengths {} and {}", a.len(), b.len())));
    }
    Ok(detach(
        py,
        #[inline(always)]
        || {
            let mut acc = Acc::default();
            for (x, y) in a.iter().zip(b) {
                acc.add(&qmul(x, y));
            }
            quad_out(acc.value())
        },
    ))
}

/// out = f(r, ·) = lo + (hi − lo)·r for f = [lo | hi] (2N values, out N): the MLE fold of
/// the first variable.
#[pyfunction]
pub fn mle_fold(py: Python<'_>, mut out: PyBuffer<i64>, f: PyBuffer<i64>, r: Quad) -> PyResult<()> {
    let caller = "mle_fold";
    let f = quads(&f, caller)?;
    let out = out_quads(&mut out, &[flat(f)], caller)?;
    if f.len() != 2 * out.len() {
        return Err(err(
            caller,
            format!(
                "{} values fold to {}, not {}",
                f.len(),
                f.len() / 2,
                out.len()
            ),
        ));
    }
    let r = quad(r);
    let (lo, hi) = f.split_at(out.len());
    detach(
        py,
        #[inline(always)]
        || {
            for ((o, l), h) in out.iter_mut().zip(lo).zip(hi) {
                *o = qadd(l, &qmul(&qsub(h, l), &r));
            }
        },
    );
    Ok(())
}

/// The base vectors of a combination Σ_k β_k·v_k, each of `len` values, with their β_k.
fn combination<'a, T>(
    vectors: Vec<&'a [T]>,
    betas: Vec<Quad>,
    len: usize,
    caller: &str,
) -> PyResult<Vec<(&'a [T], Qm31)>> {
    if vectors.is_empty() || vectors.len() != betas.len() {
        return Err(err(
            caller,
            format!("{} vectors, {} coefficients", vectors.len(), betas.len()),
        ));
    }
    vectors
        .into_iter()
        .zip(betas)
        .map(|(v, beta)| {
            if v.len() != len {
                return Err(err(caller, format!("{} values, expected {len}", v.len())));
            }
            Ok((v, quad(beta)))
        })
        .collect()
}

/// out = fold(Σ_k β_k·f_k, r) for base tables f_k = [lo_k | hi_k] (2N values each, out N),
/// without the (2N, 4) sum: A = Σ β_k·lo_k, B = Σ β_k·hi_k, out = A + (B − A)·r.
#[pyfunction]
pub fn mle_fold_combination(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    tables: Vec<PyBuffer<i64>>,
    betas: Vec<Quad>,
    r: Quad,
) -> PyResult<()> {
    let caller = "mle_fold_combination";
    let tables = tables
        .iter()
        .map(|t| values(t, caller))
        .collect::<PyResult<_>>()?;
    let terms = combination(tables, betas, 2 * out.item_count() / 4, caller)?;
    let inputs: Vec<&[u64]> = terms.iter().map(|t| t.0).collect();
    let out = out_quads(&mut out, &inputs, caller)?;
    let (r, n) = (quad(r), out.len());
    detach(
        py,
        #[inline(always)]
        || {
            for (i, o) in out.iter_mut().enumerate() {
                let (mut a, mut b) = (ZERO, ZERO);
                for (f, beta) in &terms {
                    a = qadd(&a, &qmul_base(beta, f[i]));
                    b = qadd(&b, &qmul_base(beta, f[i + n]));
                }
                *o = qadd(&a, &qmul(&qsub(&b, &a), &r));
            }
        },
    );
    Ok(())
}

/// out = codeword_fold(Σ_k β_k·C_k) for base codewords C_k (2N values each, out N, inv_2x N),
/// without the (2N, 4) sum: E = Σ β_k·(C_k[2j] + C_k[2j+1])/2,
/// O = Σ β_k·(C_k[2j] − C_k[2j+1])·inv_2x[j], out = E + (O − E)·r.
#[pyfunction]
pub fn codeword_fold_combination(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    codewords: Vec<PyBuffer<u32>>,
    betas: Vec<Quad>,
    inv_2x: PyBuffer<i64>,
    r: Quad,
) -> PyResult<()> {
    let caller = "codeword_fold_combination";
    let codewords = codewords
        .iter()
        .map(|c| words(c, caller))
        .collect::<PyResult<_>>()?;
    let terms = combination(codewords, betas, 2 * out.item_count() / 4, caller)?;
    let tw = values(&inv_2x, caller)?;
    let out = out_quads(&mut out, &[tw], caller)?;
    disjoint(
        flat(out),
        &terms.iter().map(|t| t.0).collect::<Vec<_>>(),
        caller,
    )?;
    if tw.len() != out.len() {
        return Err(err(
            caller,
            format!("{} twiddles for {} outputs", tw.len(), out.len()),
        ));
    }
    let r = quad(r);
    detach(
        py,
        #[inline(always)]
        || {
            for (j, (o, &t)) in out.iter_mut().zip(tw).enumerate() {
                let (mut even, mut odd) = (ZERO, ZERO);
                for (c, beta) in &terms {
                    let (lo, hi) = (u64::from(c[2 * j]), u64::from(c[2 * j + 1]));
                    even = qadd(&even, &qmul_base(beta, half(add(lo, hi))));
                    odd = qadd(&odd, &qmul_base(beta, mul(sub(lo, hi), t)));
                }
                *o = qadd(&even, &qmul(&qsub(&odd, &even), &r));
            }
        },
    );
    Ok(())
}

/// Σ a_i·s_i for a QM31 vector a and a base vector s of one length.
#[pyfunction]
pub fn qm31_dot_base(py: Python<'_>, a: PyBuffer<i64>, s: PyBuffer<i64>) -> PyResult<Quad> {
    let caller = "qm31_dot_base";
    let (a, s) = (quads(&a, caller)?, values(&s, caller)?);
    if a.len() != s.len() {
        return Err(err(caller, format!("lengths {} and {}", a.len(), s.len())));
    }
    Ok(detach(
        py,
        #[inline(always)]
        || {
            let mut acc = Acc::default();
            for (x, &v) in a.iter().zip(s) {
                acc.add(&qmul_base(x, v));
            }
            quad_out(acc.value())
        },
    ))
}

/// The output of an eq table over `point` (2^n QM31 values, n < 64) and the point as QM31.
fn eq_operands<'a>(
    out: &'a mut PyBuffer<i64>,
    point: Vec<Quad>,
    caller: &str,
) -> PyResult<(&'a mut [Qm31], Vec<Qm31>)> {
    let out = out_quads::<u64>(out, &[], caller)?;
    if point.len() >= 64 || out.len() != 1usize << point.len() {
        return Err(err(
            caller,
            format!("{} values for {} variables", out.len(), point.len()),
        ));
    }
    Ok((out, point.into_iter().map(quad).collect()))
}

/// out = scale·eq(point, x) for every x in {0,1}^n, MSB-first (out has 2^n values): built in
/// place, each variable splitting every entry v into (v − v·r, v·r).
#[pyfunction]
pub fn eq_table(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    point: Vec<Quad>,
    scale: Quad,
) -> PyResult<()> {
    let (out, point) = eq_operands(&mut out, point, "eq_table")?;
    detach(
        py,
        #[inline(always)]
        || {
            out[0] = quad(scale);
            for (k, r) in point.iter().enumerate() {
                for i in (0..1usize << k).rev() {
                    let v = out[i];
                    let hi = qmul(&v, r);
                    out[2 * i + 1] = hi;
                    out[2 * i] = qsub(&v, &hi);
                }
            }
        },
    );
    Ok(())
}

/// One codeword fold of adjacent pairs: out[b, j] = even + (odd − even)·r with
/// even = (W[2j] + W[2j+1])/2, odd = (W[2j] − W[2j+1])·inv_2x[j] (docs/pcs.md, "Folding").
/// `values` is B blocks of 2m QM31, `out` B blocks of m, `inv_2x` m shared or B·m values.
#[pyfunction]
pub fn codeword_fold(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    values: PyBuffer<i64>,
    inv_2x: PyBuffer<i64>,
    r: Quad,
) -> PyResult<()> {
    let caller = "codeword_fold";
    let (w, tw) = (quads(&values, caller)?, self::values(&inv_2x, caller)?);
    let out = out_quads(&mut out, &[flat(w), tw], caller)?;
    if w.len() != 2 * out.len() || tw.is_empty() || out.len() % tw.len() != 0 {
        return Err(err(
            caller,
            format!(
                "{} values, {} outputs, {} twiddles",
                w.len(),
                out.len(),
                tw.len()
            ),
        ));
    }
    let r = quad(r);
    detach(
        py,
        #[inline(always)]
        || {
            let blocks = out
                .chunks_exact_mut(tw.len())
                .zip(w.chunks_exact(2 * tw.len()));
            for (out_block, w_block) in blocks {
                for ((o, pair), &t) in out_block.iter_mut().zip(w_block.chunks_exact(2)).zip(tw) {
                    let (lo, hi) = (&pair[0], &pair[1]);
                    let even = qadd(lo, hi).map(half);
                    let odd = qmul_base(&qsub(lo, hi), t);
                    *o = qadd(&even, &qmul(&qsub(&odd, &even), &r));
                }
            }
        },
    );
    Ok(())
}

/// Values per cache block of `encode` (two u32 buffers of it stay in L2).
const ENCODE_BLOCK: usize = 1 << 15;

/// One encoding level on rows of `tw.len()` columns: each pair of rows (lo, hi) becomes one
/// row of twice the width, W[2j] = lo[j] + X[2j]·hi[j], W[2j+1] = lo[j] − X[2j]·hi[j].
fn butterflies(from: &[u32], to: &mut [u32], tw: &[u64]) {
    let width = tw.len();
    for (rows_in, rows_out) in from
        .chunks_exact(2 * width)
        .zip(to.chunks_exact_mut(2 * width))
    {
        let (lo, hi) = rows_in.split_at(width);
        for (((out, &l), &h), &t) in rows_out.chunks_exact_mut(2).zip(lo).zip(hi).zip(tw) {
            let x = mul(t, u64::from(h));
            out[0] = add(u64::from(l), x) as u32;
            out[1] = sub(u64::from(l), x) as u32;
        }
    }
}

/// The codeword of 2^n canonical M31 values on X_(n+β) (docs/pcs.md, "Encoding"): the
/// message repeated 2^β times, then n butterfly levels W[2j] = lo[j] + X[2j]·hi[j],
/// W[2j+1] = lo[j] − X[2j]·hi[j]. `twiddles` concatenates every level's fold twiddles,
/// smallest level first (2^β, 2^(β+1), …, 2^(n+β−1) values); out has 2^(n+β) values.
#[pyfunction]
pub fn encode(
    py: Python<'_>,
    mut out: PyBuffer<u32>,
    message: PyBuffer<i64>,
    twiddles: PyBuffer<i64>,
    log_blowup: u32,
) -> PyResult<()> {
    let caller = "encode";
    let (m, tw) = (values(&message, caller)?, values(&twiddles, caller)?);
    let dst: &mut [u32] = writable(&mut out, &[m, tw], caller)?;
    let size = m.len() << log_blowup;
    if !m.len().is_power_of_two() || dst.len() != size || tw.len() != size - (1 << log_blowup) {
        return Err(err(
            caller,
            format!(
                "{} values, {} outputs, {} twiddles",
                m.len(),
                dst.len(),
                tw.len()
            ),
        ));
    }
    detach(
        py,
        #[inline(always)]
        || {
            for (row, &v) in dst.chunks_exact_mut(1 << log_blowup).zip(m) {
                row.fill(v as u32);
            }
            let mut buf = vec![0u32; size];
            let (mut src, mut to) = (&mut *dst, &mut buf[..]);
            // Level `width` maps every aligned range of 2·width values onto itself, so the levels
            // with 2·width ≤ ENCODE_BLOCK run block by block in cache; the rest are whole passes.
            let block = ENCODE_BLOCK.min(size);
            let (mut width, mut offset) = (1usize << log_blowup, 0); // columns of the input rows
            let mut in_cache = Vec::new(); // (width, twiddle offset) of the levels within a block
            while 2 * width <= block && width < size {
                in_cache.push((width, offset));
                offset += width;
                width *= 2;
            }
            for (s_block, b_block) in src.chunks_exact_mut(block).zip(to.chunks_exact_mut(block)) {
                for (k, &(w, o)) in in_cache.iter().enumerate() {
                    let (from, to) = if k % 2 == 0 {
                        (&*s_block, &mut *b_block)
                    } else {
                        (&*b_block, &mut *s_block)
                    };
                    butterflies(from, to, &tw[o..o + w]);
                }
            }
            let mut levels = in_cache.len();
            if levels % 2 == 1 {
                std::mem::swap(&mut src, &mut to);
            }
            while width < size {
                butterflies(src, to, &tw[offset..offset + width]);
                std::mem::swap(&mut src, &mut to);
                offset += width;
                width *= 2;
                levels += 1;
            }
            if levels % 2 == 1 {
                to.copy_from_slice(src); // the result is in `buf`: `to` is the output again
            }
        },
    );
    Ok(())
}

/// The sums a sum-check round needs: for every product (a list of table indices) and every
/// t = 0..=degree, Σ_x Π_j f_j(t, x) where f_j(t, x) = lo_j(x) + t·(hi_j(x) − lo_j(x)) on the
/// halves of table j, or f_j(t, x) = table_j(x) for a table of half the length (constant in
/// the round's variable). Tables are QM31 (2h, 4) or (h, 4); returns products × (degree + 1)
/// values, product-major (the caller applies each product's coefficient).
#[pyfunction]
pub fn sumcheck_sums(
    py: Python<'_>,
    tables: Vec<PyBuffer<i64>>,
    products: Vec<Vec<usize>>,
    degree: usize,
) -> PyResult<Vec<Quad>> {
    let caller = "sumcheck_sums";
    let tables: Vec<&[Qm31]> = tables
        .iter()
        .map(|t| quads(t, caller))
        .collect::<PyResult<_>>()?;
    let len = tables.iter().map(|t| t.len()).max().unwrap_or(0);
    let half_len = len / 2;
    if len < 2
        || !len.is_multiple_of(2)
        || tables.iter().any(|t| t.len() != len && t.len() != half_len)
    {
        return Err(err(
            caller,
            "tables must have one even length ≥ 2 or half of it",
        ));
    }
    if products.iter().flatten().any(|&j| j >= tables.len())
        || products.iter().any(|p| p.is_empty())
    {
        return Err(err(caller, "a product names no table or a missing one"));
    }
    let sums = detach(
        py,
        #[inline(always)]
        || {
            let mut acc = vec![Acc::default(); products.len() * (degree + 1)];
            let mut at = vec![ZERO; tables.len() * (degree + 1)]; // table j at t: at[j·(d+1) + t]
            for x in 0..half_len {
                for (j, t) in tables.iter().enumerate() {
                    let row = &mut at[j * (degree + 1)..(j + 1) * (degree + 1)];
                    if t.len() == half_len {
                        row.fill(t[x]);
                        continue;
                    }
                    let (lo, hi) = (t[x], t[x + half_len]);
                    let step = qsub(&hi, &lo);
                    row[0] = lo;
                    for k in 1..=degree {
                        row[k] = qadd(&row[k - 1], &step);
                    }
                }
                for (p, prod) in products.iter().enumerate() {
                    for k in 0..=degree {
                        let mut v = at[prod[0] * (degree + 1) + k];
                        for &j in &prod[1..] {
                            v = qmul(&v, &at[j * (degree + 1) + k]);
                        }
                        acc[p * (degree + 1) + k].add(&v);
                    }
                }
            }
            acc.iter().map(|a| quad_out(a.value())).collect::<Vec<_>>()
        },
    );
    Ok(sums)
}

/// A LogUp-GKR layer's tables (docs/lookups.md, "Prover"): u, q0, q1 and p1 (absent for
/// singles: all ones) of 2h values, and eq of h, the gate of a round being
/// eq(x)·(u·q1 + p1·q0)(t, x).
struct Gate<'a> {
    eq: &'a [Qm31],
    tables: Vec<&'a [Qm31]>,
}

impl<'a> Gate<'a> {
    fn of(eq: &'a PyBuffer<i64>, tables: &'a [PyBuffer<i64>], caller: &str) -> PyResult<Self> {
        let eq = quads(eq, caller)?;
        let tables: Vec<&[Qm31]> = tables
            .iter()
            .map(|t| quads(t, caller))
            .collect::<PyResult<_>>()?;
        if !(3..=4).contains(&tables.len())
            || tables.iter().any(|t| t.len() != 2 * eq.len())
            || eq.is_empty()
        {
            return Err(err(
                caller,
                "u, q0, q1 (and p1) of 2h values and eq of h ≥ 1",
            ));
        }
        Ok(Gate { eq, tables })
    }
}

/// The gate's value at one point from the tables' values there (p1 = 1 when absent).
#[inline(always)]
fn gate_at(e: &Qm31, t: &[Qm31; 4], singles: bool) -> Qm31 {
    let [u, q0, q1, p1] = t;
    let sum = if singles {
        qadd(&qmul(u, q1), q0)
    } else {
        qadd(&qmul(u, q1), &qmul(p1, q0))
    };
    qmul(e, &sum)
}

/// A round's h(0), h(1), h(2) from the tables at x (lo) and x + half (hi).
#[derive(Default)]
struct GateSums([Acc; 3]);

impl GateSums {
    #[inline(always)]
    fn add(&mut self, e: &Qm31, lo: &[Qm31; 4], hi: &[Qm31; 4], singles: bool) {
        let mut two = [ZERO; 4];
        for k in 0..4 {
            two[k] = qsub(&qadd(&hi[k], &hi[k]), &lo[k]);
        }
        self.0[0].add(&gate_at(e, lo, singles));
        self.0[1].add(&gate_at(e, hi, singles));
        self.0[2].add(&gate_at(e, &two, singles));
    }

    fn value(&self) -> (Quad, Quad, Quad) {
        let [a, b, c] = &self.0;
        (
            quad_out(a.value()),
            quad_out(b.value()),
            quad_out(c.value()),
        )
    }
}

/// The tables' values at index i (p1 = 1, a placeholder, for singles).
#[inline(always)]
fn gate_row(tables: &[&[Qm31]], i: usize) -> [Qm31; 4] {
    let p1 = tables.get(3).map_or([1, 0, 0, 0], |t| t[i]);
    [tables[0][i], tables[1][i], tables[2][i], p1]
}

/// A LogUp-GKR layer round's h(t) = Σ_x eq(x)·(u·q1 + p1·q0)(t, x) at t = 0, 1, 2, the round's
/// variable split off as the halves of u, q0, q1 and p1 (2h values each; p1 omitted for
/// singles, all ones), eq of h values.
#[pyfunction]
pub fn gate_sums(
    py: Python<'_>,
    eq: PyBuffer<i64>,
    tables: Vec<PyBuffer<i64>>,
) -> PyResult<(Quad, Quad, Quad)> {
    let gate = Gate::of(&eq, &tables, "gate_sums")?;
    let (h, singles) = (gate.eq.len(), gate.tables.len() == 3);
    Ok(detach(
        py,
        #[inline(always)]
        || {
            let mut sums = GateSums::default();
            for (i, e) in gate.eq.iter().enumerate() {
                let (lo, hi) = (gate_row(&gate.tables, i), gate_row(&gate.tables, i + h));
                sums.add(e, &lo, &hi, singles);
            }
            sums.value()
        },
    ))
}

/// Folds a LogUp-GKR layer's tables at s (`mle_fold` of u, q0, q1 and p1, 2h values into h
/// each, into `outs`) and eq by adding its halves (h into h/2, into `eq_out`), and returns
/// the next round's `gate_sums` of the folded tables from the same pass (zeros when h = 1).
#[pyfunction]
pub fn gate_fold(
    py: Python<'_>,
    mut outs: Vec<PyBuffer<i64>>,
    mut eq_out: PyBuffer<i64>,
    eq: PyBuffer<i64>,
    tables: Vec<PyBuffer<i64>>,
    s: Quad,
) -> PyResult<(Quad, Quad, Quad)> {
    let caller = "gate_fold";
    let gate = Gate::of(&eq, &tables, caller)?;
    let mut inputs: Vec<&[u64]> = gate.tables.iter().map(|t| flat(t)).collect();
    inputs.push(flat(gate.eq));
    let h = gate.eq.len();
    let eq_out = out_quads(&mut eq_out, &inputs, caller)?;
    let mut folded: Vec<&mut [Qm31]> = Vec::with_capacity(outs.len());
    for out in outs.iter_mut() {
        let out = out_quads(out, &inputs, caller)?;
        for other in &folded {
            disjoint(flat(out), &[flat(other)], caller)?;
        }
        disjoint(flat(out), &[flat(eq_out)], caller)?;
        folded.push(out);
    }
    if folded.len() != gate.tables.len()
        || folded.iter().any(|o| o.len() != h)
        || eq_out.len() != h / 2
        || (h > 1 && !h.is_multiple_of(2))
    {
        return Err(err(caller, "one output of h per table and eq_out of h/2"));
    }
    let (s, singles) = (quad(s), gate.tables.len() == 3);
    Ok(detach(
        py,
        #[inline(always)]
        || {
            let fold = |t: &[Qm31], i: usize| qadd(&t[i], &qmul(&qsub(&t[i + h], &t[i]), &s));
            let mut sums = GateSums::default();
            if h == 1 {
                for (out, t) in folded.iter_mut().zip(&gate.tables) {
                    out[0] = fold(t, 0);
                }
                return sums.value();
            }
            let half = h / 2;
            for i in 0..half {
                let (mut lo, mut hi) = ([[1, 0, 0, 0]; 4], [[1, 0, 0, 0]; 4]);
                for (k, (out, t)) in folded.iter_mut().zip(&gate.tables).enumerate() {
                    (lo[k], hi[k]) = (fold(t, i), fold(t, i + half));
                    (out[i], out[i + half]) = (lo[k], hi[k]);
                }
                let e = qadd(&gate.eq[i], &gate.eq[i + half]);
                eq_out[i] = e;
                sums.add(&e, &lo, &hi, singles);
            }
            sums.value()
        },
    ))
}

/// out[x] += scale·eq(point, x) for every x in {0,1}^n, MSB-first (out has 2^n values): the
/// claims of a merge summed into one table. eq(point, x) is the product of the eq tables of
/// the first ⌊n/2⌋ and the last ⌈n/2⌉ variables, so only those two small tables are built.
#[pyfunction]
pub fn eq_add(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    point: Vec<Quad>,
    scale: Quad,
) -> PyResult<()> {
    let (out, point) = eq_operands(&mut out, point, "eq_add")?;
    let (head, tail) = point.split_at(point.len() / 2);
    detach(
        py,
        #[inline(always)]
        || {
            let high = eq_values(head, quad(scale));
            let low = eq_values(tail, [1, 0, 0, 0]);
            for (block, h) in out.chunks_exact_mut(low.len()).zip(&high) {
                for (o, l) in block.iter_mut().zip(&low) {
                    *o = qadd(o, &qmul(h, l));
                }
            }
        },
    );
    Ok(())
}

/// scale·eq(point, x) for every x, MSB-first, as `eq_table` builds it.
fn eq_values(point: &[Qm31], scale: Qm31) -> Vec<Qm31> {
    let mut out = vec![ZERO; 1 << point.len()];
    out[0] = scale;
    for (k, r) in point.iter().enumerate() {
        for i in (0..1usize << k).rev() {
            let v = out[i];
            let hi = qmul(&v, r);
            out[2 * i + 1] = hi;
            out[2 * i] = qsub(&v, &hi);
        }
    }
    out
}

/// The second table of a pair: base-field values (N,) or QM31 (N, 4), told apart by its length
/// against the first table's N values.
enum Second<'a> {
    Base(&'a [u64]),
    Ext(&'a [Qm31]),
}

impl Second<'_> {
    fn of<'a>(buf: &'a PyBuffer<i64>, n: usize, caller: &str) -> PyResult<Second<'a>> {
        let v = values(buf, caller)?;
        if v.len() == n {
            Ok(Second::Base(v))
        } else if v.len() == 4 * n {
            quads(buf, caller).map(Second::Ext)
        } else {
            Err(err(caller, format!("{} values against {n} QM31", v.len())))
        }
    }

    fn flat(&self) -> &[u64] {
        match self {
            Second::Base(v) => v,
            Second::Ext(q) => flat(q),
        }
    }
}

/// A degree-2 round polynomial of products w·f, g(X) = Σ_x w(X, x)·f(X, x), as its constant
/// and leading coefficients (what a round sends; the verifier rebuilds the linear one):
/// c0 = Σ lo_w·lo_f and c2 = Σ (hi_w − lo_w)·(hi_f − lo_f), two products per x.
#[derive(Default)]
struct RoundCoefficients([Acc; 2]);

impl RoundCoefficients {
    #[inline(always)]
    fn add(&mut self, w: (&Qm31, &Qm31), f: (&Qm31, &Qm31)) {
        self.0[0].add(&qmul(w.0, f.0));
        self.0[1].add(&qmul(&qsub(w.1, w.0), &qsub(f.1, f.0)));
    }

    #[inline(always)]
    fn add_base(&mut self, w: (&Qm31, &Qm31), f: (u64, u64)) {
        self.0[0].add(&qmul_base(w.0, f.0));
        self.0[1].add(&qmul_base(&qsub(w.1, w.0), sub(f.1, f.0)));
    }

    fn value(&self) -> (Quad, Quad) {
        (quad_out(self.0[0].value()), quad_out(self.0[1].value()))
    }
}

/// A sum-check round of the product w·f (the first variable split off as the halves of the
/// tables): the coefficients c0, c2 of g(X) = Σ_x w(X, x)·f(X, x). w is QM31 (2h, 4), f base
/// (2h,) (a product by a base value is a quarter of a QM31 product) or QM31 (2h, 4).
#[pyfunction]
pub fn pair_round(py: Python<'_>, w: PyBuffer<i64>, f: PyBuffer<i64>) -> PyResult<(Quad, Quad)> {
    let caller = "pair_round";
    let w = quads(&w, caller)?;
    let f = Second::of(&f, w.len(), caller)?;
    if w.len() < 2 || !w.len().is_multiple_of(2) {
        return Err(err(
            caller,
            format!("{} values do not split into halves", w.len()),
        ));
    }
    let h = w.len() / 2;
    let (w_lo, w_hi) = w.split_at(h);
    Ok(detach(
        py,
        #[inline(always)]
        || {
            let mut round = RoundCoefficients::default();
            match f {
                Second::Base(f) => {
                    for i in 0..h {
                        round.add_base((&w_lo[i], &w_hi[i]), (f[i], f[i + h]));
                    }
                }
                Second::Ext(f) => {
                    for i in 0..h {
                        round.add((&w_lo[i], &w_hi[i]), (&f[i], &f[i + h]));
                    }
                }
            }
            round.value()
        },
    ))
}

/// Folds a pair (w, f) at r, as `mle_fold` each (f base (2N,) or QM31 (2N, 4); the outputs
/// QM31 (N, 4)), and returns the next round's `pair_round` of the folded pair, computed in
/// the same pass (zeros when N = 1: no round is left).
#[pyfunction]
pub fn pair_fold(
    py: Python<'_>,
    mut w_out: PyBuffer<i64>,
    mut f_out: PyBuffer<i64>,
    w: PyBuffer<i64>,
    f: PyBuffer<i64>,
    r: Quad,
) -> PyResult<(Quad, Quad)> {
    let caller = "pair_fold";
    let w = quads(&w, caller)?;
    let f = Second::of(&f, w.len(), caller)?;
    let w_out = out_quads(&mut w_out, &[flat(w), f.flat()], caller)?;
    let f_out = out_quads(&mut f_out, &[flat(w), f.flat(), flat(w_out)], caller)?;
    let n = w_out.len();
    if n == 0 || w.len() != 2 * n || f_out.len() != n || (n > 1 && !n.is_multiple_of(2)) {
        return Err(err(
            caller,
            format!(
                "{} values fold to {} and {}",
                w.len(),
                w_out.len(),
                f_out.len()
            ),
        ));
    }
    let r = quad(r);
    let fold = |lo: &Qm31, hi: &Qm31| qadd(lo, &qmul(&qsub(hi, lo), &r));
    let fold_base = |lo: u64, hi: u64| {
        let mut v = qmul_base(&r, sub(hi, lo));
        v[0] = add(v[0], lo);
        v
    };
    let f_at = |i: usize| match &f {
        Second::Base(f) => fold_base(f[i], f[i + n]),
        Second::Ext(f) => fold(&f[i], &f[i + n]),
    };
    Ok(detach(
        py,
        #[inline(always)]
        || {
            let mut round = RoundCoefficients::default();
            if n == 1 {
                w_out[0] = fold(&w[0], &w[1]);
                f_out[0] = f_at(0);
                return round.value();
            }
            let h = n / 2;
            for i in 0..h {
                let (a, b) = (fold(&w[i], &w[i + n]), fold(&w[i + h], &w[i + h + n]));
                let (c, d) = (f_at(i), f_at(i + h));
                round.add((&a, &b), (&c, &d));
                (w_out[i], w_out[i + h], f_out[i], f_out[i + h]) = (a, b, c, d);
            }
            round.value()
        },
    ))
}

fn out_values<'a, V>(
    buf: &'a mut PyBuffer<i64>,
    inputs: &[&[V]],
    caller: &str,
) -> PyResult<&'a mut [u64]> {
    writable(buf, inputs, caller)
}

fn pow(mut x: u64, mut e: u64) -> u64 {
    let mut acc = 1;
    while e > 0 {
        if e & 1 == 1 {
            acc = mul(acc, x);
        }
        x = mul(x, x);
        e >>= 1;
    }
    acc
}

/// out = 1/x for every M31 value (Montgomery's trick: one inversion, 3 products per value).
/// Raises ZeroDivisionError on a zero.
#[pyfunction]
pub fn m31_batch_inverse(py: Python<'_>, mut out: PyBuffer<i64>, x: PyBuffer<i64>) -> PyResult<()> {
    let caller = "m31_batch_inverse";
    let x = values(&x, caller)?;
    let out = out_values(&mut out, &[x], caller)?;
    if x.len() != out.len() {
        return Err(err(
            caller,
            format!("{} values, {} outputs", x.len(), out.len()),
        ));
    }
    if x.contains(&0) {
        return Err(PyZeroDivisionError::new_err("inverse of zero in M31"));
    }
    detach(
        py,
        #[inline(always)]
        || {
            let mut acc = 1;
            for (o, &v) in out.iter_mut().zip(x) {
                *o = acc; // product of the values before this one
                acc = mul(acc, v);
            }
            let mut inv = pow(acc, P - 2); // 1/(product of all)
            for (o, &v) in out.iter_mut().zip(x).rev() {
                *o = mul(*o, inv);
                inv = mul(inv, v);
            }
        },
    );
    Ok(())
}

/// The fold twiddles of the line domains X_ℓ (docs/pcs.md, "The code") for
/// ℓ = log_bottom + 1 … L, concatenated smallest level first (out has 2^L − 2^log_bottom
/// values): level ℓ holds X_ℓ[2j] for j < 2^(ℓ−1). The top level is the x-coordinates of
/// h^(1 + 4·bitrev(j)) for h of order 2^(L+2) (doubling [h] with steps h^4, h^8, …, as an
/// outer product of two small tables); each lower level is π(x) = 2x² − 1 of the even
/// entries above it.
#[pyfunction]
pub fn fold_twiddles(
    py: Python<'_>,
    mut out: PyBuffer<i64>,
    h: (u64, u64),
    log_bottom: u32,
) -> PyResult<()> {
    let caller = "fold_twiddles";
    let out = out_values::<u64>(&mut out, &[], caller)?;
    let bottom = 1usize << log_bottom;
    if out.is_empty() || !(out.len() + bottom).is_power_of_two() {
        return Err(err(
            caller,
            format!("{} outputs is not 2^L − 2^{log_bottom}", out.len()),
        ));
    }
    let circle_mul = |a: (u64, u64), b: (u64, u64)| {
        (
            sub(mul(a.0, b.0), mul(a.1, b.1)),
            add(mul(a.0, b.1), mul(a.1, b.0)),
        )
    };
    let h = (h.0 % P, h.1 % P);
    detach(
        py,
        #[inline(always)]
        || {
            let top_len = (out.len() + bottom) / 2;
            // point[i] = h^(1 + 4·bitrev(i)) = A[i_hi]·B[i_lo] for i = i_hi·2^k + i_lo: A doubles
            // [h] with steps h^4, h^8, …; B doubles [1] with the steps that follow.
            let doubling = |start: (u64, u64), step: &mut (u64, u64), len: usize| {
                let mut table = vec![start];
                while table.len() < len {
                    table = table
                        .iter()
                        .flat_map(|&t| [t, circle_mul(t, *step)])
                        .collect();
                    *step = circle_mul(*step, *step);
                }
                table
            };
            let mut step = circle_mul(circle_mul(h, h), circle_mul(h, h));
            let low = 1usize << (top_len.trailing_zeros() / 2);
            let a = doubling(h, &mut step, top_len / low);
            let b = doubling((1, 0), &mut step, low);
            let n = out.len();
            let top = &mut out[n - top_len..];
            for (row, p) in top.chunks_exact_mut(low).zip(&a) {
                for (o, q) in row.iter_mut().zip(&b) {
                    *o = sub(mul(p.0, q.0), mul(p.1, q.1));
                }
            }
            let (mut lower, mut level) = out.split_at_mut(out.len() - top_len);
            while !lower.is_empty() {
                let (rest, below) = lower.split_at_mut(lower.len() - level.len() / 2);
                for (o, pair) in below.iter_mut().zip(level.chunks_exact(2)) {
                    let square = mul(pair[0], pair[0]);
                    *o = sub(add(square, square), 1);
                }
                (lower, level) = (rest, below);
            }
        },
    );
    Ok(())
}
