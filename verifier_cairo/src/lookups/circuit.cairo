//! What the prover and the verifier of the fraction tree compute alike (mirror of
//! prover/lookups/circuit.py, docs/lookups.md).
//!
//! Instance I has n_I variables; the walk has n = max n_I layers. At layer j (claims on a point
//! of j variables) instance I is active iff j ≥ n − n_I: it joins with its root at j = n − n_I,
//! and its claims sit on the last j − (n − n_I) coordinates of the common point.

use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait, UnreducedQM31Trait};
use crate::mle::eq_factor;
use crate::pcs::queries::pow2;

/// eq(r, x) times a product of two children.
pub const DEGREE: u32 = 3;
/// p(s,0), p(s,1), q(s,0), q(s,1).
pub const MASK_SIZE: u32 = 4;
/// P, Q.
pub const ROOT_SIZE: u32 = 2;

/// n = max n_I, 0 for no instances.
pub fn max_vars(n_vars: Span<u32>) -> u32 {
    let mut n = 0;
    for k in n_vars {
        if *k > n {
            n = *k;
        }
    }
    n
}

/// The instances taking part in `layer`, in instance order (`n` = `max_vars(n_vars)`, which
/// Python's `active` computes itself).
pub fn active(n_vars: Span<u32>, n: u32, layer: u32) -> Span<u32> {
    let mut out = array![];
    let mut i = 0;
    for k in n_vars {
        if layer >= n - *k {
            out.append(i);
        }
        i += 1;
    }
    out.span()
}

/// p(x,0)q(x,1) + p(x,1)q(x,0) + λ·q(x,0)q(x,1): the parent's p + λq from its children
/// (`mask` = [p0, p1, q0, q1]), the three products summed before one reduction.
pub fn gate(mask: Span<QM31>, lam: QM31) -> QM31 {
    let (p0, p1, q0, q1) = (*mask[0], *mask[1], *mask[2], *mask[3]);
    (p0.mul_unreduced(q1) + p1.mul_unreduced(q0) + lam.mul_unreduced(q0 * q1)).reduce()
}

/// The children's claims at the child coordinate ρ: (p(s,ρ), q(s,ρ)).
pub fn reduce_mask(mask: Span<QM31>, rho: QM31) -> (QM31, QM31) {
    let (p0, p1, q0, q1) = (*mask[0], *mask[1], *mask[2], *mask[3]);
    (p0 + rho * (p1 - p0), q0 + rho * (q1 - q0))
}

/// Σ_k a^k·values[k] (Horner).
pub fn combine(values: Span<QM31>, a: QM31) -> QM31 {
    let mut acc = QM31Trait::zero();
    let mut values = values;
    while let Some(v) = values.pop_back() {
        acc = acc * a + *v;
    }
    acc
}

/// The layer sum-check's claim: Σ_k a^k·2^unused_k·(p_k + λ·q_k) over the active claims.
///
/// An instance ignores the first unused_k variables of the sum-check, so its sum counts its
/// own 2^unused_k times (2^31 = 1 mod p: the power is taken of unused_k mod 31).
pub fn layer_claim(claims: Span<(QM31, QM31)>, unused: Span<u32>, lam: QM31, a: QM31) -> QM31 {
    let mut values = array![];
    let mut unused = unused;
    for claim in claims {
        let (p, q) = *claim;
        let u = *unused.pop_front().unwrap() % 31;
        let value = p + lam * q;
        values.append(if u == 0 {
            value
        } else {
            value.scale(M31Trait::new(pow2(u)))
        });
    }
    combine(values.span(), a)
}

/// The rows one after the other.
pub fn flatten(rows: Span<Array<QM31>>) -> Span<QM31> {
    let mut out = array![];
    for row in rows {
        out.append_span(row.span());
    }
    out.span()
}

/// tails[t] = eq of the last t coordinates of `point` and `s` (t = 0 … len), `point` given as
/// its head and its last coordinate (the previous layer's s and ρ; `head` and `s` empty at
/// layer 0, where `last` is not read): eq(point[u:], s[u:]) is tails[len − u], every suffix
/// in one product per coordinate.
pub fn eq_tails(head: Span<QM31>, last: QM31, s: Span<QM31>) -> Span<QM31> {
    let mut acc = QM31Trait::one();
    let mut tails = array![acc];
    let mut s = s;
    if let Some(y) = s.pop_back() {
        acc = eq_factor(last, *y);
        tails.append(acc);
        let mut head = head;
        while let Some(x) = head.pop_back() {
            acc = acc * eq_factor(*x, *s.pop_back().unwrap());
            tails.append(acc);
        }
    }
    tails.span()
}
