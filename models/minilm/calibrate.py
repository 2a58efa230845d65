"""Calibration: per-tensor power-of-two scales from the float reference's largest magnitudes on
the calibration sentences, and the integer weights those scales give."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from cairn.models.minilm import reference
from cairn.models.minilm.quantized import QK_BITS, SOFTMAX_SCALE, QuantModel, Widths
from cairn.models.minilm.source import MAX_TOKENS, Config, Weights
from cairn.prover.layers.gelu.table import gelu_table
from cairn.prover.softmax.params import epsilon

QK_HEADROOM = 0
"""Q and K get no spare bit: int8 is their accuracy bottleneck, and values beyond the
calibrated range saturate at ±127, as the softmax gadget's clamp does anyway."""


def observe(w: Weights, sentences: Iterable[np.ndarray]) -> dict[str, float]:
    """The largest |x| at every activation site of the float reference over the sentences
    (token id arrays), one sentence at a time."""
    peak: dict[str, float] = {}

    def tap(site: str, values: np.ndarray) -> None:
        peak[site] = max(peak.get(site, 0.0), float(np.abs(values).max()))

    for ids in sentences:
        reference.forward(w, ids[None, :], np.ones((1, len(ids)), dtype=bool), tap)
    return peak


def fit(max_abs: float, bits: int, headroom: int = 0) -> int:
    """The largest f with max_abs·2^(f + headroom) <= 2^(b−1) − 1."""
    if not max_abs > 0:
        raise ValueError("cannot scale an all-zero tensor")
    return math.floor(math.log2(((1 << (bits - 1)) - 1) / max_abs)) - headroom


def width(max_abs: float, headroom: int = 0) -> int:
    """Signed bits holding integers up to max_abs, plus headroom."""
    return math.ceil(math.log2(max_abs + 1)) + 1 + headroom


LINEARS = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "o": "attention.output.dense",
    "1": "intermediate.dense",
    "2": "output.dense",
}
"""Cairn's name of each linear of a layer (w_j, b_j) -> its safetensors module."""


def float_tensors(w: Weights) -> dict[str, np.ndarray]:
    """Every weight in Cairn's layout (linear weights input × output) with the constants folded
    exactly in float before rounding: 1/√m into W_q and b_q (so the softmax temperature is a
    power of two) and token type 0's embedding into the position table (a sentence is one
    segment)."""
    c, e = w.config, "embeddings."
    out = {
        "embed.word": w[e + "word_embeddings.weight"],
        "embed.position": w[e + "position_embeddings.weight"]
        + w[e + "token_type_embeddings.weight"][0],
        "embed.ln.gamma": w[e + "LayerNorm.weight"],
        "embed.ln.beta": w[e + "LayerNorm.bias"],
    }
    root_m = math.sqrt(c.head_dim)
    for i in range(c.layers):
        p, src = f"layer{i}.", f"encoder.layer.{i}."
        for j, module in LINEARS.items():
            div = root_m if j == "q" else 1.0
            out[p + "w_" + j] = w[src + module + ".weight"].T / div
            out[p + "b_" + j] = w[src + module + ".bias"] / div
        for ln, module in (("ln1", "attention.output.LayerNorm"), ("ln2", "output.LayerNorm")):
            out[p + ln + ".gamma"] = w[src + module + ".weight"]
            out[p + ln + ".beta"] = w[src + module + ".bias"]
    return out


def norm_names(c: Config) -> list[str]:
    """Every LayerNorm, named by its output site."""
    return ["embed.ln"] + [f"layer{i}.{ln}" for i in range(c.layers) for ln in ("ln1", "ln2")]


def site_names(c: Config) -> list[str]:
    """Every activation site with a scale and width (the names `plan` gives them)."""
    per_layer = ("q", "k", "v", "ctx", "attn", "ffn_in", "ffn_act", "ffn_out")
    layers = [f"layer{i}.{n}" for i in range(c.layers) for n in per_layer]
    return norm_names(c) + [n + ".y" for n in norm_names(c)] + layers


def plan(
    c: Config, tensors: dict[str, np.ndarray], peaks: dict[str, float], widths: Widths
) -> tuple[dict[str, int], dict[str, int]]:
    """The scale f and signed width b of every weight and activation site."""
    scales: dict[str, int] = {}
    bits: dict[str, int] = {}

    def peak(name: str) -> float:
        return float(np.abs(tensors[name]).max())

    def weight(name: str, b: int, f: int | None = None) -> int:
        scales[name], bits[name] = fit(peak(name), b) if f is None else f, b
        return scales[name]

    def bias(name: str, f: int) -> None:
        scales[name], bits[name] = f, width(peak(name) * 2.0**f)

    def site(name: str, b: int, headroom: int = widths.headroom) -> int:
        scales[name], bits[name] = fit(peaks[name], b, headroom), b
        return scales[name]

    def forced(name: str, f: int) -> None:
        """A residual branch: its scale is the stream's; its width follows from its range."""
        scales[name], bits[name] = f, width(peaks[name] * 2.0**f, widths.headroom)

    def layer_norm(name: str) -> int:
        """y is normalized (|y| <= √d), so its scale needs no calibration."""
        f_out = site(name, widths.act)
        scales[name + ".y"] = widths.norm - 1 - math.ceil(math.log2(math.sqrt(c.d)))
        bits[name + ".y"] = widths.norm
        weight(name + ".gamma", widths.gamma)
        bias(name + ".beta", f_out)
        return f_out

    def linear(p: str, j: str, f_in: int) -> None:
        bias(p + "b_" + j, f_in + weight(p + "w_" + j, widths.weight))

    f_e = fit(max(peak("embed.word"), peak("embed.position")), widths.embed)
    weight("embed.word", widths.embed, f_e)
    weight("embed.position", widths.embed, f_e)
    f_x = layer_norm("embed.ln")
    for i in range(c.layers):
        p = f"layer{i}."
        qkv = (("q", QK_BITS, QK_HEADROOM), ("k", QK_BITS, QK_HEADROOM))
        for j, b, room in (*qkv, ("v", widths.v, widths.headroom)):
            site(p + j, b, room)
            linear(p, j, f_x)
        f_ctx = site(p + "ctx", widths.ctx)
        linear(p, "o", f_ctx)
        forced(p + "attn", f_x)
        f_x = layer_norm(p + "ln1")
        f_g = site(p + "ffn_in", widths.ffn_in)
        linear(p, "1", f_x)
        f_a = f_g + widths.ffn_act - widths.ffn_in
        scales[p + "ffn_act"], bits[p + "ffn_act"] = f_a, widths.ffn_act
        linear(p, "2", f_a)
        forced(p + "ffn_out", f_x)
        f_x = layer_norm(p + "ln2")
    return scales, bits


def integers(tensors: dict[str, np.ndarray], scales: dict[str, int]) -> dict[str, np.ndarray]:
    """round(t·2^f) for every weight (round half to even; exact in float64, so reproducible)."""
    return {name: np.rint(t * 2.0 ** scales[name]).astype(np.int64) for name, t in tensors.items()}


def quantize(w: Weights, peaks: dict[str, float], widths: Widths) -> QuantModel:
    tensors = float_tensors(w)
    scales, bits = plan(w.config, tensors, peaks, widths)
    return QuantModel(w.config, widths, integers(tensors, scales), scales, bits)


def worst_case_log2(model: QuantModel) -> dict[str, float]:
    """log2 of the worst-case magnitude of each matmul and Hadamard accumulator from the widths
    and weights alone, maximised over layers (the verifier's bit-width rule). Matmuls bound by
    Hölder, and those reading a LayerNorm output also by Cauchy–Schwarz (the row's L2 norm is
    fixed by the normalisation: ‖x‖₂ <= max|γ|·√d·2^f + ‖β‖₂ + √d for rounding), whichever is
    smaller; A·V by the softmax row sums (<= 2^θ + ε at 128 tokens). Below 30 a site can never
    overflow; above, only the calibrated ranges (checked at run time) keep it in M31."""
    c, m, w = model.config, model, model.weights
    out: dict[str, float] = {}

    def note(kind: str, value: float) -> None:
        out[kind] = max(out.get(kind, 0.0), math.log2(value))

    def matmul(kind: str, p: str, j: str, x_max: float, x_l2: float = math.inf) -> None:
        wj = np.abs(w[p + "w_" + j]).astype(np.float64)
        bound = min(x_max * wj.sum(axis=0).max(), x_l2 * np.sqrt((wj**2).sum(axis=0)).max())
        note(kind, bound + float(np.abs(w[p + "b_" + j]).max()))

    def ln_out(name: str) -> tuple[float, float]:
        """(max |x|, max ‖x_row‖₂) of a LayerNorm output x = R(y·γ) + β."""
        beta = np.abs(w[name + ".beta"]).astype(np.float64)
        gamma = float(np.abs(w[name + ".gamma"]).max()) * 2.0 ** -m.scales[name + ".gamma"]
        l2 = gamma * math.sqrt(c.d) * 2.0 ** m.scales[name] + math.sqrt((beta**2).sum() + c.d)
        return (1 << (m.bits[name] - 1)) - 1 + beta.max(), l2

    for name in norm_names(c):
        note("ln.z", (1 << (m.bits[name + ".y"] - 1)) * int(np.abs(w[name + ".gamma"]).max()))
    softmax_eps = epsilon(MAX_TOKENS)
    for i in range(c.layers):
        p = f"layer{i}."
        for j in "qkv":
            matmul(j, p, j, *ln_out("embed.ln" if i == 0 else f"layer{i - 1}.ln2"))
        note("scores", c.head_dim * ((1 << (QK_BITS - 1)) - 1) ** 2)
        note("av", ((1 << SOFTMAX_SCALE) + softmax_eps) * ((1 << (m.bits[p + "v"] - 1)) - 1))
        matmul("attn", p, "o", (1 << (m.bits[p + "ctx"] - 1)) - 1)
        matmul("ffn_in", p, "1", *ln_out(p + "ln1"))
        f_g, b_g = m.scales[p + "ffn_in"], m.bits[p + "ffn_in"]
        table = gelu_table(f_g, b_g, m.scales[p + "ffn_act"], m.bits[p + "ffn_act"])
        matmul("ffn_out", p, "2", float(np.abs(table).max()))
    return out
