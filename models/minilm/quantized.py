"""The integer forward pass: the exact semantics the proofs follow (docs/models/minilm.md).

Every tensor is an integer array t with a power-of-two scale f (real value t·2^−f). Every step
is a deterministic integer function, and every value that enters a relation is checked to
satisfy |x| < 2^30, so M31 arithmetic on the centred representatives equals integer
arithmetic; a value that would overflow raises ValueError naming its site (the prover aborts,
it never proves a wrapped value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from cairn.models.minilm.source import Config
from cairn.prover.fields.m31 import max_magnitude
from cairn.prover.layers.gelu.table import gelu_table
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.layernorm.params import LayerNormParams
from cairn.prover.linalg import exact_matmul
from cairn.prover.mle import pad_tensor
from cairn.prover.softmax import model as softmax_model
from cairn.prover.softmax.params import QK_BOUND, THETA, SoftmaxParams

LIMIT = 1 << 30
"""Every value entering a relation has |x| < LIMIT."""
QK_BITS = QK_BOUND.bit_length() + 1
"""The softmax gadget needs |q|, |k| <= 127: int8."""
SOFTMAX_SCALE = THETA
"""θ: softmax outputs at scale 2^19 (rows sum to 2^19 ± ε)."""


@dataclass(frozen=True)
class Widths:
    """Signed bit widths (sign included) per kind of tensor; calibration picks each tensor's
    scale so its largest observed magnitude fits with `headroom` spare bits. The defaults keep
    every matmul's worst case below 2^30 from the widths alone (calibrate.worst_case_log2) and
    the embeddings within 0.998 cosine of the float reference (docs/models/minilm.md)."""

    weight: int = 12
    embed: int = 12
    gamma: int = 12
    act: int = 16
    norm: int = 16
    v: int = 11
    ctx: int = 14
    ffn_in: int = 15
    ffn_act: int = 12
    headroom: int = 1
    norm_shift: int = 24

    def as_json(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class QuantModel:
    """Integer weights by name and, for every weight and activation site, its scale f and
    signed width b. Weights are e × h (input × output) as Cairn's layers read them."""

    config: Config
    widths: Widths
    weights: dict[str, np.ndarray]
    scales: dict[str, int]
    bits: dict[str, int]


@dataclass
class Trace:
    """The largest |x| at each site (a value entering a relation) and how many values each
    requantization clamped."""

    peak: dict[str, int] = field(default_factory=dict)
    clamped: dict[str, int] = field(default_factory=dict)

    def check(self, site: str, values: np.ndarray) -> np.ndarray:
        m = max_magnitude(np.asarray(values))
        if m >= LIMIT:
            raise ValueError(
                f"{site}: a value of magnitude 2^{math.log2(m):.2f} reaches 2^30 (M31 bound)"
            )
        self.peak[site] = max(self.peak.get(site, 0), m)
        return values

    def max_log2(self) -> dict[str, float]:
        """log2 of the largest magnitude per kind of site, over all layers."""
        kinds: dict[str, int] = {}
        for site, m in self.peak.items():
            kind = site.split(".", 1)[1] if site.startswith("layer") else site
            kinds[kind] = max(kinds.get(kind, 0), m)
        return {k: math.log2(m) if m else 0.0 for k, m in sorted(kinds.items())}


def requant(trace: Trace, site: str, p: np.ndarray, k: int, b: int) -> np.ndarray:
    """R(P; k, b) = clamp(⌊(P + 2^(k−1)) / 2^k⌋) to |y| <= 2^(b−1) − 1 (round half up).

    The remainder P + 2^(k−1) − 2^k·Y lies in [0, 2^k) and is range-checked in the proof; b + k
    <= 30 makes (Y, remainder) unique in M31."""
    if k < 1 or b + k > 30:
        raise ValueError(f"{site}: requantization shift {k} and width {b} need 1 <= k, b + k <= 30")
    shifted = trace.check(site + ".acc", p + (1 << (k - 1)))
    y = shifted >> k
    lim = (1 << (b - 1)) - 1
    clamped = int(np.count_nonzero(np.abs(y) > lim))
    if clamped:
        trace.clamped[site] = trace.clamped.get(site, 0) + clamped
    return trace.check(site, np.clip(y, -lim, lim))


def softmax(scores: np.ndarray, head_dim: int, log2_gamma: int) -> np.ndarray:
    """A = the softmax gadget's output (prover/softmax) for int8 scores S (h × s × s) at logit
    scale γ = 2^log2_gamma: rows summing to 2^θ ± ε, on MHA's padded grid, cut back to h × s × s.
    The temperature c = γ·2^F is exact because γ is a power of two (1/√m is folded into W_q)."""
    h, s, _ = scores.shape
    params = SoftmaxParams.derive(s, head_dim, 2.0**log2_gamma)
    valid = softmax_model.valid_entries(h, s, causal=False)
    trace = softmax_model.forward(pad_tensor(scores), valid, params)
    return trace.y[:h, :s, :s]


@dataclass(frozen=True)
class Pooled:
    """The pooled embedding as an integer sum over the real tokens at scale 2^−f, with the
    public divisor `count`: the mean is exactly sum / count, and its direction (what the
    normalised embedding keeps) is that of `sum`."""

    sum: np.ndarray
    count: int
    scale: int

    def embedding(self) -> np.ndarray:
        v = self.sum.astype(np.float64)
        return v / np.linalg.norm(v)


class Pass:
    """One forward pass: the model, its trace and the blocks (each usable on its own)."""

    def __init__(self, model: QuantModel, trace: Trace) -> None:
        self.m, self.t = model, trace

    def f(self, name: str) -> int:
        return self.m.scales[name]

    def matmul(self, site: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a @ b over the integers (batched over leading axes), refused by site beyond M31."""
        try:
            return self.t.check(site, exact_matmul(a, b))
        except ValueError as e:
            raise ValueError(f"{site}: {e}") from None

    def linear(self, site: str, x: np.ndarray, f_x: int, w: str, b: str) -> np.ndarray:
        """R(x·W + b; f_x + f_W − f_site, b_site): a matmul, its bias, one requantization."""
        m, t = self.m, self.t
        acc = self.matmul(site + ".matmul", x, m.weights[w]) + m.weights[b]
        k = f_x + self.f(w) - self.f(site)
        return requant(t, site, acc, k, m.bits[site])

    def layer_norm_params(self, name: str, h: np.ndarray, f_h: int) -> LayerNormParams:
        """The layernorm layer's parameters (prover/layers/layernorm) of LayerNorm `name` over
        h at scale 2^−f_h: R and the widths of n and the output from the model, E =
        round(ε·2^(2f_h)), the shifts from the scales; h's limb bits and γ's magnitude bits
        from the values (a model walk may widen the limbs to h's producer's bound)."""
        m, d = self.m, h.shape[-1]
        big_r, f_y = m.widths.norm_shift, self.f(name + ".y")
        gamma = m.weights[name + ".gamma"]
        return LayerNormParams(
            d,
            layernorm.limb_bits(h),
            big_r,
            round(m.config.eps * 2.0 ** (2 * f_h)),
            big_r - f_y,
            m.bits[name + ".y"],
            max_magnitude(gamma).bit_length(),
            f_y + self.f(name + ".gamma") - self.f(name),
            m.bits[name],
        )

    def layer_norm(self, name: str, h: np.ndarray, f_h: int) -> np.ndarray:
        """LayerNorm with exact integer statistics (docs/models/minilm.md, "LayerNorm"): the
        row mean μ and factor r of prover/layers/layernorm, then two requantizations."""
        m, t = self.m, self.t
        p = self.layer_norm_params(name, h, f_h)
        s1 = [int(v) for v in h.sum(axis=-1)]
        s2 = [int(v) for v in (h.astype(object) ** 2).sum(axis=-1)]
        mean = np.array([layernorm.row_mean(a, p.d) for a in s1], dtype=np.int64)
        r = np.array(
            [layernorm.norm_factor(a, b, p.d, p.shift, p.eps) for a, b in zip(s1, s2, strict=True)]
        )
        c = t.check(name + ".c", h - mean[:, None])
        y = requant(t, name + ".y", c * r[:, None], p.norm_shift, p.norm_bits)
        z = requant(t, name + ".z", y * m.weights[name + ".gamma"], p.scale_shift, p.scale_bits)
        return t.check(name, z + m.weights[name + ".beta"])

    def attention(self, i: int, x: np.ndarray, f_x: int) -> np.ndarray:
        c, p = self.m.config, f"layer{i}."
        s = x.shape[0]

        def heads(t: np.ndarray) -> np.ndarray:  # s × d -> h × s × m
            return t.reshape(s, c.heads, c.head_dim).transpose(1, 0, 2)

        q, k, v = (heads(self.linear(p + j, x, f_x, p + "w_" + j, p + "b_" + j)) for j in "qkv")
        scores = self.matmul(p + "scores", q, k.transpose(0, 2, 1))
        log2_gamma = -self.f(p + "q") - self.f(p + "k")
        a = self.t.check(p + "softmax", softmax(scores, c.head_dim, log2_gamma))
        av = self.matmul(p + "av", a, v).transpose(1, 0, 2).reshape(s, c.d)
        k_ctx = SOFTMAX_SCALE + self.f(p + "v") - self.f(p + "ctx")
        ctx = requant(self.t, p + "ctx", av, k_ctx, self.m.bits[p + "ctx"])
        return self.linear(p + "attn", ctx, self.f(p + "ctx"), p + "w_o", p + "b_o")

    def ffn(self, i: int, x: np.ndarray, f_x: int) -> np.ndarray:
        m, p = self.m, f"layer{i}."
        g = self.linear(p + "ffn_in", x, f_x, p + "w_1", p + "b_1")
        table = gelu_table(
            self.f(p + "ffn_in"), m.bits[p + "ffn_in"], self.f(p + "ffn_act"), m.bits[p + "ffn_act"]
        )
        a = self.t.check(p + "ffn_act", table[g + (1 << (m.bits[p + "ffn_in"] - 1))])
        return self.linear(p + "ffn_out", a, self.f(p + "ffn_act"), p + "w_2", p + "b_2")


def forward(model: QuantModel, ids: np.ndarray, trace: Trace | None = None) -> Pooled:
    """The integer forward pass over one sentence's token ids (s <= positions)."""
    run = Pass(model, trace or Trace())
    ids = np.asarray(ids, dtype=np.int64)
    s = len(ids)
    if not 1 <= s <= model.config.positions:
        raise ValueError(f"{s} tokens: expected 1..{model.config.positions}")
    if ids.min() < 0 or ids.max() >= model.config.vocab:
        raise ValueError(f"token ids must lie in [0, {model.config.vocab})")
    w = model.weights
    h = run.t.check("embed.sum", w["embed.word"][ids] + w["embed.position"][:s])
    x, f_x = run.layer_norm("embed.ln", h, run.f("embed.word")), run.f("embed.ln")
    for i in range(model.config.layers):
        p = f"layer{i}."
        h = run.t.check(p + "residual1", x + run.attention(i, x, f_x))
        x, f_x = run.layer_norm(p + "ln1", h, f_x), run.f(p + "ln1")
        h = run.t.check(p + "residual2", x + run.ffn(i, x, f_x))
        x, f_x = run.layer_norm(p + "ln2", h, f_x), run.f(p + "ln2")
    return Pooled(run.t.check("pool.sum", x.sum(axis=0)), s, f_x)
