"""Softmax accuracy: the proven integer softmax against float64, on realistic attention logits.

    .venv/bin/cairn bench softmax          # s = 128 and 512, h = 12, m = 32, causal and not

`accuracy_rows(s, m, causal, rng)` returns one dict per logit distribution. Q and K are drawn
in float, quantised to int8 per tensor (scale max|x|/127), and the logit is γ·S with
S = Q₈·K₈ᵀ and γ = s_q·s_k/√m, as a model with int8 attention inputs computes it. Reported:

- l1_max, l1_mean: per-row ‖y/2^θ − softmax(γ·S)‖₁ over the valid rows;
- l1_max_proven: the same against softmax((c/2^F)·S), the temperature actually proven, which
  is what l1_bound (the guarantee for any accepted row) bounds;
- av_rel_err: ‖A·V − A_f·V‖_F / ‖A_f·V‖_F over all heads, V ~ N(0, 1) in float;
- norm_max: max |R_i − 2^θ| beside ε;
- int8_l1_max: for scale, the int8 rounding of Q and K alone (float softmax(γ·S) against
  softmax(q·kᵀ/√m) of the unquantised tensors).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from cairn.prover.layers.mha.model import Dims, head_scores
from cairn.prover.softmax.model import forward, row_sums, valid_entries
from cairn.prover.softmax.params import SoftmaxParams

CASES = ("gaussian", "peaked", "uniform")


def _draw(case: str, s: int, width: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Float q, k (s × width). gaussian: logits of std ≈ 3 (σ = 1.8 per entry); peaked: each
    key close to its own query, so the diagonal dominates by ≈ 10 logits; uniform: logits of
    std ≈ 0.1, near-uniform rows."""
    sigma = {"gaussian": 1.8, "peaked": 1.5, "uniform": 0.3}[case]
    q = rng.normal(0, sigma, (s, width))
    k = rng.normal(0, sigma, (s, width))
    if case == "peaked":
        k = 0.8 * q + 0.6 * k
    return q, k


def _quantise(x: np.ndarray) -> tuple[np.ndarray, float]:
    scale = float(np.abs(x).max()) / 127
    return np.rint(x / scale).astype(np.int64), scale


def _softmax(logits: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """float64 softmax over the last axis restricted to valid entries; invalid rows are 0."""
    x = np.where(valid, logits, -np.inf)
    rows = valid.any(axis=-1, keepdims=True)
    x = x - np.where(rows, x.max(axis=-1, keepdims=True), 0)
    ex = np.exp(x)
    return ex / np.where(rows, ex.sum(axis=-1, keepdims=True), 1)


def head_scores_float(q: np.ndarray, k: np.ndarray, dims: Dims) -> np.ndarray:
    """QK̂ of float q, k (ĥ × ŝ × ŝ), zero-padded like head_scores."""
    qh = np.zeros((dims.h_hat, dims.s_hat, dims.m))
    kh = np.zeros_like(qh)
    qh[: dims.h, : dims.s] = q.reshape(dims.s, dims.h, dims.m).transpose(1, 0, 2)
    kh[: dims.h, : dims.s] = k.reshape(dims.s, dims.h, dims.m).transpose(1, 0, 2)
    return qh @ kh.transpose(0, 2, 1)


def accuracy_rows(
    s: int, m: int, causal: bool, rng: np.random.Generator, heads: int = 12
) -> list[dict[str, Any]]:
    """One row per logit distribution of CASES (see the module docstring)."""
    dims = Dims(s, heads, m, causal)
    valid = valid_entries(heads, s, causal)
    rows = valid.any(axis=-1)
    out = []
    for case in CASES:
        q, k = _draw(case, s, heads * m, rng)
        (q8, sq), (k8, sk) = _quantise(q), _quantise(k)
        gamma = sq * sk / math.sqrt(m)
        params = SoftmaxParams.derive(s, m, gamma)
        scores = head_scores(q8, k8, dims)
        start = time.perf_counter()
        trace = forward(scores, valid, params)
        seconds = time.perf_counter() - start
        a = trace.y / 2.0**params.theta
        ref = _softmax(gamma * scores, valid)
        proven = _softmax(params.gamma * scores, valid)
        unquantised = _softmax(head_scores_float(q, k, dims) / math.sqrt(m), valid)
        v = np.zeros((dims.h_hat, dims.s_hat, m))
        v[:heads, :s] = rng.normal(0, 1, (s, heads, m)).transpose(1, 0, 2)
        av_ref = ref @ v
        out.append(
            {
                "case": case,
                "s": s,
                "h": heads,
                "m": m,
                "causal": causal,
                "gamma": gamma,
                "F": params.f,
                "c": params.c,
                "eps": params.eps,
                "norm_max": int(np.abs(row_sums(trace) - (1 << params.theta))[rows].max()),
                "l1_max": float(np.abs(a - ref).sum(-1)[rows].max()),
                "l1_mean": float(np.abs(a - ref).sum(-1)[rows].mean()),
                "l1_max_proven": float(np.abs(a - proven).sum(-1)[rows].max()),
                "l1_bound": params.l1_bound(s),
                "av_rel_err": float(np.linalg.norm(a @ v - av_ref) / np.linalg.norm(av_ref)),
                "int8_l1_max": float(np.abs(ref - unquantised).sum(-1)[rows].max()),
                "forward_s": seconds,
            }
        )
    return out
