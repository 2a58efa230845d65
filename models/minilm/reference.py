"""The float64 reference forward pass (BERT, post-LayerNorm, as the model was trained), the
yardstick of the integer pipeline's accuracy.

`tap(site, values)` sees every activation at the sites the integer pipeline requantizes
(names shared with quantized.py), restricted to real tokens; calibration reads maxima there.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from cairn.models.minilm.source import Weights

Tap = Callable[[str, np.ndarray], None]


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its exact erf form, x·Φ(x) (numpy has no erf; math.erf element-wise)."""
    flat = (x / math.sqrt(2.0)).ravel().tolist()
    erf = np.fromiter(map(math.erf, flat), np.float64, len(flat)).reshape(x.shape)
    return 0.5 * x * (1.0 + erf)


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def _linear(w: Weights, name: str, x: np.ndarray) -> np.ndarray:
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def forward(w: Weights, ids: np.ndarray, mask: np.ndarray, tap: Tap | None = None) -> np.ndarray:
    """Unit-norm sentence embeddings (B × d) of token ids (B × s) whose real tokens are
    mask == True; padded keys get no attention and padded rows are not pooled."""
    c, eps = w.config, w.config.eps
    mask = np.asarray(mask, dtype=bool)
    b, s = ids.shape
    h, m = c.heads, c.head_dim

    def see(site: str, values: np.ndarray) -> None:
        if tap is not None:
            tap(site, values[mask])

    def split(t: np.ndarray) -> np.ndarray:  # B × s × d -> B × h × s × m
        return t.reshape(b, s, h, m).transpose(0, 2, 1, 3)

    e = "embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][:s]
    x = x + w[e + "token_type_embeddings.weight"][0]
    x = layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    see("embed.ln", x)
    key_bias = np.where(mask, 0.0, -np.inf)[:, None, None, :]
    for i in range(c.layers):
        p = f"encoder.layer.{i}."
        q = _linear(w, p + "attention.self.query", x) / math.sqrt(m)
        k = _linear(w, p + "attention.self.key", x)
        v = _linear(w, p + "attention.self.value", x)
        for name, t in (("q", q), ("k", k), ("v", v)):
            see(f"layer{i}.{name}", t)
        scores = split(q) @ split(k).transpose(0, 1, 3, 2) + key_bias
        a = np.exp(scores - scores.max(axis=-1, keepdims=True))
        a /= a.sum(axis=-1, keepdims=True)
        ctx = (a @ split(v)).transpose(0, 2, 1, 3).reshape(b, s, c.d)
        see(f"layer{i}.ctx", ctx)
        attn = _linear(w, p + "attention.output.dense", ctx)
        see(f"layer{i}.attn", attn)
        x = x + attn
        ln1 = p + "attention.output.LayerNorm"
        x = layer_norm(x, w[ln1 + ".weight"], w[ln1 + ".bias"], eps)
        see(f"layer{i}.ln1", x)
        g = _linear(w, p + "intermediate.dense", x)
        see(f"layer{i}.ffn_in", g)
        f = _linear(w, p + "output.dense", gelu(g))
        see(f"layer{i}.ffn_out", f)
        ln2 = p + "output.LayerNorm"
        x = layer_norm(x + f, w[ln2 + ".weight"], w[ln2 + ".bias"], eps)
        see(f"layer{i}.ln2", x)
    pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
