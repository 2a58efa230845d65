"""Random int8 example statements: what `cairn prove <layer>` proves and `cairn bench layers`
measures (at MiniLM's sizes: attention s = 128, h = 12, m = 32). A builder's parameters are
its command's options (cairn/prove_cmd.py): their `Annotated` types and defaults declare them,
and `LAYER_EXAMPLES` says which builder a kind's command runs."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from cairn.models.minilm.quantized import Widths
from cairn.options import Causal, Dim, Seed, load_matrix
from cairn.prover.fields.m31 import max_magnitude
from cairn.prover.graph.prover import assemble
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.graph.views import output_bounds
from cairn.prover.layers.add import model as add
from cairn.prover.layers.attn import model as attn
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.gelu import model as gelu
from cairn.prover.layers.kvcache import model as kvcache
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.layernorm.params import LayerNormParams
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.mha import model as mha
from cairn.prover.layers.pool import model as pool
from cairn.prover.layers.posenc import model as posenc
from cairn.prover.layers.qkv import model as qkv
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.requant import model as requant
from cairn.prover.layers.requant.params import RequantParams
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.walk.statement import Statement


def _int8(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-128, 128, shape, dtype=np.int64)


def _qkv_weights(rng: np.random.Generator, embed: int, hidden: int) -> dict[str, np.ndarray]:
    shapes = qkv.QKV.weight_shapes(embed, hidden)
    return {name: _int8(rng, *shape) for name, shape in shapes.items()}


def matmul_example(
    m: Dim = 128,
    k: Dim = 256,
    n: Dim = 64,
    seed: Seed = 0,
    a: Annotated[Path | None, typer.Option(help="A as a .npy integer matrix (m x k)")] = None,
    b: Annotated[Path | None, typer.Option(help="B as a .npy integer matrix (k x n)")] = None,
) -> Statement:
    """A and B from .npy files where given: the one example a user can prove their own data with."""
    rng = np.random.default_rng(seed)
    a_mat = load_matrix(a, "--a") if a else _int8(rng, m, k)
    b_mat = load_matrix(b, "--b") if b else _int8(rng, k, n)
    return matmul.make_statement(a_mat, b_mat)


def posenc_example(
    seq: Dim = 100, context: Dim = 512, embed: Dim = 384, seed: Seed = 0
) -> Statement:
    if seq > context:  # in the options' terms (make_statement says it in the tensors')
        raise ValueError(f"--seq {seq} exceeds --context {context}")
    rng = np.random.default_rng(seed)
    return posenc.make_statement(_int8(rng, seq, embed), _int8(rng, context, embed))


def qkv_example(seq: Dim = 128, embed: Dim = 384, hidden: Dim = 384, seed: Seed = 0) -> Statement:
    rng = np.random.default_rng(seed)
    return qkv.make_statement(_int8(rng, seq, embed), _qkv_weights(rng, embed, hidden))


def linear_example(
    seq: Dim = 128, embed: Dim = 384, out_dim: Dim = 1536, seed: Seed = 0
) -> Statement:
    rng = np.random.default_rng(seed)
    shapes = linear.LINEAR.weight_shapes(embed, out_dim)
    weights = {name: _int8(rng, *shape) for name, shape in shapes.items()}
    return linear.make_statement(_int8(rng, seq, embed), weights)


def add_example(rows: Dim = 128, cols: Dim = 384, seed: Seed = 0) -> Statement:
    """A residual add of two int8 tensors (MiniLM's x + attention(x) after requantization)."""
    rng = np.random.default_rng(seed)
    return add.make_statement(_int8(rng, rows, cols), _int8(rng, rows, cols))


def decode_example(
    steps: Dim = 4,
    context: Dim = 256,
    embed: Dim = 384,
    hidden: Dim = 384,
    prefill: Annotated[
        int | None,
        typer.Option(min=0, help="rows already cached before the first step \\[context - steps]"),
    ] = None,
    seed: Seed = 0,
) -> Statement:
    """`prefill` cached rows (by default as many as leave room for the steps), then `steps`
    decode steps."""
    prefill = context - steps if prefill is None else prefill
    if prefill < 0 or prefill + steps > context:
        raise ValueError(f"prefill {prefill} + steps {steps} must fit in --context {context}")
    rng = np.random.default_rng(seed)
    weights = _qkv_weights(rng, embed, hidden)
    caches = {j: _int8(rng, prefill, hidden) for j in kvcache.CACHES}
    return kvcache.make_statement(_int8(rng, steps, embed), caches, context, weights)


def mha_example(
    seq: Dim = 128, heads: Dim = 12, head_dim: Dim = 32, causal: Causal = False, seed: Seed = 0
) -> Statement:
    """Softmax is the unproven reference stand-in (the softmax boundary, docs/layers/mha.md)."""
    rng = np.random.default_rng(seed)
    q, k, v = (_int8(rng, seq, heads * head_dim) for _ in range(3))
    return mha.make_statement(q, k, v, heads, causal, mha.reference_softmax)


def default_gamma(head_dim: int) -> float:
    """Softmax's logit scale for random int8 Q and K read as reals at scale 2^-6 (|q| < 2):
    γ = s_q·s_k/√m."""
    return 2.0**-12 / head_dim**0.5


def attn_example(
    seq: Dim = 128,
    heads: Dim = 12,
    head_dim: Dim = 32,
    causal: Causal = False,
    gamma: Annotated[
        float | None,
        typer.Option(min=0.0, help="logit scale γ: softmax of γ·QKᵀ \\[2^-12/√head_dim]"),
    ] = None,
    seed: Seed = 0,
) -> Statement:
    """Attention with softmax proven; Q and K in [−127, 127] as the softmax proof needs."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.integers(-127, 128, (seq, heads * head_dim), dtype=np.int64) for _ in range(3))
    gamma = default_gamma(head_dim) if gamma is None else gamma
    return attn.make_statement(q, k, v, heads, causal, gamma)


def requant_example(
    rows: Dim = 128,
    cols: Dim = 384,
    multiplier: Annotated[int, typer.Option(min=1, help="public multiplier M")] = 181,
    shift: Annotated[int, typer.Option(min=1, help="shift k: divide by 2^k, round half up")] = 22,
    bits: Annotated[int, typer.Option(min=1, help="output bits b: clamp to ±(2^(b−1) − 1)")] = 8,
    seed: Seed = 0,
) -> Statement:
    """Random wide accumulators |x| < 2^a, a ≤ 22 (an int8 matmul's output over e = 384
    reaches 2^22.6), a lowered until the no-wrap bound (2^a − 1)·M + 2^(k−1) < 2^30 holds and
    every quotient lies in the CLAMP table."""
    rng = np.random.default_rng(seed)
    a = 22
    while a > 0 and (
        (p := RequantParams.of_bits(multiplier, shift, bits, a)).range_problem() or p.windowed
    ):
        a -= 1
    x = rng.integers(-(1 << a) + 1, 1 << a, (rows, cols), dtype=np.int64)
    return requant.make_statement(x, multiplier, shift, bits)


GELU_SCALES = (8, 5)
"""f_in, f_out of MiniLM layer 0's FFN (docs/models/minilm.md, "Scales"): g at 2^−8, GELU(g)
at 2^−5."""


def gelu_example(rows: Dim = 128, cols: Dim = 1536, seed: Seed = 0) -> Statement:
    """MiniLM's FFN activation: x as the requantized W₁ output (b_in = 15 signed bits, clamped
    to ±(2^14 − 1)), uniform over that range, y at b_out = 12 bits."""
    rng = np.random.default_rng(seed)
    b_in, b_out = Widths.ffn_in, Widths.ffn_act
    bound = (1 << (b_in - 1)) - 1
    x = rng.integers(-bound, bound + 1, (rows, cols), dtype=np.int64)
    f_in, f_out = GELU_SCALES
    return gelu.make_statement(x, f_in, b_in, f_out, b_out)


def embed_example(
    seq: Dim = 128, vocab: Dim = 30522, dim: Dim = 384, positions: Dim = 512, seed: Seed = 0
) -> Statement:
    """Random token ids and int8 tables; the word table in the blocks a PCS commitment holds."""
    if seq > positions:  # in the options' terms (make_statement says it in the tensors')
        raise ValueError(f"--seq {seq} exceeds --positions {positions}")
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, seq)
    rows = embed.pcs_block_rows(vocab, dim, POSEIDON_PARAMS.max_n_vars)
    return embed.make_statement(ids, _int8(rng, vocab, dim), _int8(rng, positions, dim), rows)


def pool_example(seq: Dim = 128, dim: Dim = 384, seed: Seed = 0) -> Statement:
    return pool.make_statement(_int8(np.random.default_rng(seed), seq, dim))


def layernorm_params(h: np.ndarray, gamma: np.ndarray, eps: int = 0) -> LayerNormParams:
    """MiniLM's LayerNorm settings (docs/models/minilm.md) for rows of h's width: R = 24, or
    less for rows so wide that 2^(R+1)·√(d−1) would reach 2^30; n at scale 2^f_n with
    f_n = 15 − ⌈log₂√d⌉ in 16 bits (k_n = R − f_n); z = R(n·γ; 11, 16); limb and γ bits
    from the data."""
    d = h.shape[1]
    f_n = 15 - math.ceil(math.log2(math.sqrt(d)))
    w, g = layernorm.limb_bits(h), max_magnitude(gamma).bit_length()
    shift = 24
    while (p := LayerNormParams(d, w, shift, eps, shift - f_n, 16, g, 11, 16)).problem():
        if shift - f_n <= 1:
            raise ValueError(f"no LayerNorm parameters fit: {p.problem()}")
        shift -= 1
    return p


def layernorm_example(seq: Dim = 128, dim: Dim = 384, seed: Seed = 0) -> Statement:
    """Rows like a residual stream: each its own mean (|μ| < 2^12) and spread (2^8 to 2^13),
    a few outlier features, |h| < 2^17; 12-bit γ, β within ±2^12."""
    rng = np.random.default_rng(seed)
    spread = 2.0 ** rng.uniform(8, 13, (seq, 1))
    h = rng.normal(0, 1, (seq, dim)) * spread + rng.uniform(-(2**12), 2**12, (seq, 1))
    outliers = rng.random((1, dim)) < 0.02
    h = np.clip(np.rint(h + outliers * spread * 8), -(2**17) + 1, 2**17 - 1).astype(np.int64)
    gamma = rng.integers(-2047, 2048, dim, dtype=np.int64)
    beta = rng.integers(-(2**12), 2**12, dim, dtype=np.int64)
    return layernorm.make_statement(h, gamma, beta, layernorm_params(h, gamma))


def range_example(rows: Dim = 384, cols: Dim = 1536, bits: Dim = 12, seed: Seed = 0) -> Statement:
    """A MiniLM-size weight matrix of `bits` signed bits (with its column sums up to 16 bits)
    and its bias of 22: W₁'s widths."""
    rng = np.random.default_rng(seed)
    half = 1 << (bits - 1)
    w = rng.integers(-half + 1, half, (rows, cols), dtype=np.int64)
    b = rng.integers(-(1 << 21), 1 << 21, cols, dtype=np.int64)
    return range_check.make_statement([w, b], [bits, 22], [bits <= 16, False])


@dataclass(frozen=True)
class LayerExample:
    """A kind's example and what `cairn prove <kind>` says it proves (the command's --help):
    the command is generated from it, so a kind with an example has a command."""

    build: Callable[..., Statement]
    help: str


LAYER_EXAMPLES: dict[str, LayerExample] = {
    matmul.KIND: LayerExample(
        matmul_example,
        """Prove C = A·B. Random int8 A (m×k) and B (k×n) from --seed unless --a/--b are given.
        With --commit-weights and --model-id the proof holds for that registered weight only.""",
    ),
    posenc.KIND: LayerExample(
        posenc_example,
        "Prove O = X + P[:seq] for random int8 X (seq×embed) and table P (context×embed).",
    ),
    qkv.KIND: LayerExample(
        qkv_example,
        "Prove Q, K, V = X·W + B for random int8 X (seq×embed), W (embed×hidden) and biases.",
    ),
    linear.KIND: LayerExample(
        linear_example,
        "Prove Y = X·W + b for random int8 X (seq×embed), W (embed×out-dim) and bias b.",
    ),
    add.KIND: LayerExample(
        add_example, "Prove the residual add Y = A + B for random int8 A and B (rows×cols)."
    ),
    kvcache.KIND: LayerExample(
        decode_example,
        "Prove a run of decode steps: new q, k, v rows and the KV caches after every step.",
    ),
    mha.KIND: LayerExample(
        mha_example,
        """Prove multi-head attention around softmax (QKᵀ with masking, A·V, padding/unpadding).

        Softmax is not proven by this kind: its input S_M and output A are public in the proof
        (`prove attn` proves it).""",
    ),
    attn.KIND: LayerExample(
        attn_example,
        """Prove attention with softmax inside for random Q, K, V in [−127, 127]: the scores and
        the softmax matrix appear nowhere in the proof (docs/layers/attn.md).""",
    ),
    embed.KIND: LayerExample(
        embed_example,
        """Prove y = word\\[ids] + position[:seq] for random token ids and int8 tables word
        (vocab×dim, in blocks one commitment holds) and position (positions×dim).""",
    ),
    pool.KIND: LayerExample(
        pool_example,
        "Prove y = Σ_i x\\[i] (the mean pooling's numerator) for random int8 x (seq×dim).",
    ),
    requant.KIND: LayerExample(
        requant_example,
        """Prove y = clamp(⌊(x·M + 2^(k−1))/2^k⌋) for random wide x (|x| < 2^22) with range
        lookups on the committed remainders (docs/layers/requant.md).""",
    ),
    gelu.KIND: LayerExample(
        gelu_example,
        """Prove y = GELU table\\[x] for random x of 15 signed bits (MiniLM's FFN activation, layer
        0's scales) with one lookup into the (input, output) table (docs/layers/gelu.md).""",
    ),
    range_check.KIND: LayerExample(
        range_example,
        """Prove every entry of random weights within their declared signed bits: W (rows×cols)
        by one lookup each, its 22-bit bias by two 16- and 6-bit limbs (docs/layers/range.md).
        With --commit-weights, what a model walk needs to check the relations reading them.""",
    ),
    layernorm.KIND: LayerExample(
        layernorm_example,
        """Prove LayerNorm with exact integer statistics over random residual-like rows
        (|h| < 2^17), |γ| < 2^11 and |β| < 2^12: the row sums and limb sums of Σh² are public,
        the normalised rows committed witness (docs/layers/layernorm.md).""",
    ),
}
"""Each layer kind's example, in the order `cairn prove --help` lists their commands."""

BENCHMARKS: dict[str, Callable[[], Statement]] = {
    "qkv s=128 e=384 h=384": lambda: qkv_example(128, 384, 384, 0),
    "linear s=128 e=384 h=1536": lambda: linear_example(128, 384, 1536, 0),
    "add 128×384": lambda: add_example(128, 384, 0),
    "mha s=128 h=12 m=32 causal": lambda: mha_example(128, 12, 32, True, 0),
    "attn s=128 h=12 m=32 causal": lambda: attn_example(128, 12, 32, True, None, 0),
    "requant 128×384 M=181 k=22 b=8": lambda: requant_example(128, 384, 181, 22, 8, 0),
    "gelu 128×1536 b_in=15 b_out=12": lambda: gelu_example(128, 1536, 0),
    "layernorm s=128 d=384": lambda: layernorm_example(128, 384, 0),
    "posenc s=128 c=512 e=384": lambda: posenc_example(128, 512, 384, 0),
    "qkv-decode T=4 l=256 e=h=384": lambda: decode_example(4, 256, 384, 384, prefill=124, seed=0),
    "embed s=128 V=30522 P=512 d=384": lambda: embed_example(128, 30522, 384, 512, 0),
    "pool s=128 d=384": lambda: pool_example(128, 384, 0),
}


ONCHAIN_BENCHMARKS: dict[str, Callable[[], Statement]] = {
    "matmul m=16 k=128 n=128": lambda: matmul_example(16, 128, 128, 0),
    "linear s=16 e=128 h=128": lambda: linear_example(16, 128, 128, 0),
    "qkv s=16 e=64 h=64": lambda: qkv_example(16, 64, 64, 0),
    "qkv-decode T=4 l=32 e=64 h=32": lambda: decode_example(4, 32, 64, 32, prefill=12, seed=0),
    "mha s=16 h=4 m=16 causal": lambda: mha_example(16, 4, 16, True, 0),
    "posenc s=64 c=128 e=64": lambda: posenc_example(64, 128, 64, 0),
    "attn s=16 h=4 m=16 causal": lambda: attn_example(16, 4, 16, True, None, 0),
    "requant 16×128 M=181 k=22 b=8": lambda: requant_example(16, 128, 181, 22, 8, 0),
    "gelu 16×128 (MiniLM layer 0's table)": lambda: gelu_example(16, 128, 0),
    "layernorm s=16 d=128": lambda: layernorm_example(16, 128, 0),
    "add 16×128": lambda: add_example(16, 128, 0),
    "pool s=128 d=32": lambda: pool_example(128, 32, 0),
    "embed s=16 V=256 P=16 d=64": lambda: embed_example(16, 256, 64, 16, 0),
}
"""Layer proofs verified on chain by `cairn bench layers --onchain`: the largest round shapes
whose public tensors fit one transaction's calldata (the witness openings of attn, requant,
gelu and layernorm go in sessions)."""

MINILM_ONCHAIN: dict[str, Callable[[], Statement]] = {
    "qkv s=128 e=384 h=384": lambda: qkv_example(128, 384, 384, 0),
    "mha s=128 h=12 m=32": lambda: mha_example(128, 12, 32, False, 0),
    "posenc s=128 c=512 e=384": lambda: posenc_example(128, 512, 384, 0),
    "qkv-decode T=4 l=128 e=384 h=384": lambda: decode_example(4, 128, 384, 384, seed=0),
    "embed s=128 V=30522 P=512 d=384": lambda: embed_example(128, 30522, 384, 512, 0),
}
"""`cairn bench layers --onchain --minilm`: all-MiniLM-L6-v2's attention and embedding
shapes, whose tensors only fit a transaction committed (`--commit-weights` and
`--commit-io`)."""


Graph = tuple[GraphStatement, dict[str, np.ndarray]]
"""A graph statement and its hidden tensors' values (what `prove_graph` takes)."""


def attention_block_example(
    seq: int, embed: int, heads: int, head_dim: int, causal: bool, seed: int
) -> Graph:
    """x → qkv → requant to int8 (q, k, v) → attn → o, as one graph: x, the weights and o are
    public, Q, K, V before and after requantization are hidden."""
    return assemble(_attention_layers(seq, embed, heads, head_dim, causal, seed), ["o"])


def attention_layer_example(
    seq: int, embed: int, heads: int, head_dim: int, causal: bool, seed: int
) -> Graph:
    """A whole attention layer: the block of `attention_block_example`, then o requantized to
    int8 and the output projection (x·W_o + b_o back to the embedding width) → out; x, the
    weights and out are public, everything between hidden."""
    rng = np.random.default_rng([seed, 1])
    layers = _attention_layers(seq, embed, heads, head_dim, causal, seed)
    attended = layers[-1][0]
    bound = output_bounds(attended)["o"]
    clamped = _requantized(attended.outputs["o"], bound.max if bound else 0)
    weights = {"w": _int8(rng, heads * head_dim, embed), "b": _int8(rng, embed)}
    projected = linear.make_statement(clamped.outputs["y"], weights)
    layers += [
        (clamped, {"x": "o", "y": "o8"}),
        (projected, {"x": "o8", "y": "out", "w": "w_o", "b": "b_o"}),
    ]
    return assemble(layers, ["out"])


def _attention_layers(
    seq: int, embed: int, heads: int, head_dim: int, causal: bool, seed: int
) -> list[tuple[Statement, dict[str, str]]]:
    rng = np.random.default_rng(seed)
    projected = qkv.make_statement(
        _int8(rng, seq, embed), _qkv_weights(rng, embed, heads * head_dim)
    )
    layers: list[tuple[Statement, dict[str, str]]] = [(projected, {})]
    bounds = output_bounds(projected)
    for j in qkv.PROJECTIONS:
        y = projected.outputs[j]
        p = RequantParams.fit(bounds[j].max if bounds[j] else 0, int(np.abs(y).max()), 8)
        st = requant.make_statement(y, p.multiplier, p.shift, p.bits, p.bound.bit_length())
        layers.append((st, {"x": j, "y": f"{j}8"}))
    q, k, v = (st.outputs["y"] for st, _ in layers[1:])
    gamma = default_gamma(head_dim)
    attended = attn.make_statement(q, k, v, heads, causal, gamma)
    layers.append((attended, {"q": "q8", "k": "k8", "v": "v8"}))
    return layers


def _requantized(y: np.ndarray, bound: int, bits: int = 8) -> Statement:
    """y requantized to `bits` signed bits for inputs bounded by `bound` (the producer's, as a
    verifier reads it), scaled to y's actual peak."""
    p = RequantParams.fit(bound, int(np.abs(y).max()), bits)
    return requant.make_statement(y, p.multiplier, p.shift, p.bits, p.bound.bit_length())


def ffn_example(seq: int, dim: int, hidden: int, seed: int) -> Graph:
    """A MiniLM-style feed-forward block: x → linear (W₁) → requant to the GELU table's 15
    bits → gelu (layer 0's table) → linear (W₂) → out; x, the weights and out public,
    everything between hidden."""
    rng = np.random.default_rng(seed)
    x = _int8(rng, seq, dim)
    up = linear.make_statement(x, {"w": _int8(rng, dim, hidden), "b": _int8(rng, hidden)})
    bound = output_bounds(up)["y"]
    clamped = _requantized(up.outputs["y"], bound.max if bound else 0, Widths.ffn_in)
    f_in, f_out = GELU_SCALES
    act = gelu.make_statement(clamped.outputs["y"], f_in, Widths.ffn_in, f_out, Widths.ffn_act)
    down = linear.make_statement(
        act.outputs["y"], {"w": _int8(rng, hidden, dim), "b": _int8(rng, dim)}
    )
    return assemble(
        [
            (up, {"y": "g", "w": "w_1", "b": "b_1"}),
            (clamped, {"x": "g", "y": "g15"}),
            (act, {"x": "g15", "y": "a"}),
            (down, {"x": "a", "y": "out", "w": "w_2", "b": "b_2"}),
        ],
        ["out"],
    )


def _residual(rng: np.random.Generator, seq: int, dim: int) -> list[tuple[Statement, dict]]:
    """x → linear → requant → add x, wired h, h8, r: a projection whose output the
    requantization bounds again, a residual add of a bounded and a public tensor."""
    x = _int8(rng, seq, dim)
    projected = linear.make_statement(x, {"w": _int8(rng, dim, dim), "b": _int8(rng, dim)})
    bound = output_bounds(projected)["y"]
    clamped = _requantized(projected.outputs["y"], bound.max if bound else 0)
    residual = add.make_statement(clamped.outputs["y"], x)
    return [
        (projected, {"y": "h"}),
        (clamped, {"x": "h", "y": "h8"}),
        (residual, {"a": "h8", "b": "x", "y": "r"}),
    ]


def residual_pool_example(seq: int, dim: int, seed: int) -> Graph:
    """x → linear → requant → add x → pool: the residual, then column sums."""
    layers = _residual(np.random.default_rng(seed), seq, dim)
    pooled = pool.make_statement(layers[-1][0].outputs["y"])
    return assemble([*layers, (pooled, {"x": "r", "y": "pooled"})], ["pooled"])


def residual_norm_example(seq: int, dim: int, seed: int) -> Graph:
    """x → linear → requant → add x → layernorm, MiniLM's post-attention shape: a LayerNorm of
    a hidden residual, its γ and β committed with the weights, its row statistics public."""
    rng = np.random.default_rng(seed)
    layers = _residual(rng, seq, dim)
    gamma = rng.integers(-2047, 2048, dim, dtype=np.int64)
    beta = rng.integers(-(2**12), 2**12, dim, dtype=np.int64)
    params = layernorm_params(np.full((1, dim), 255), gamma)  # limbs for the residual's ±255
    normed = layernorm.make_statement(layers[-1][0].outputs["y"], gamma, beta, params)
    wiring = {"h": "r", "y": "out", "gamma": "ln_gamma", "beta": "ln_beta"}
    return assemble([*layers, (normed, wiring)], ["out", "s1", "s2"])


def embed_pool_example(seq: int, vocab: int, dim: int, seed: int) -> Graph:
    """ids → embed → requant → pool: a gather with no inputs, its output requantized."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, seq)
    embedded = embed.make_statement(ids, _int8(rng, vocab, dim), _int8(rng, seq, dim))
    clamped = _requantized(embedded.outputs["y"], 2 * 128)
    pooled = pool.make_statement(clamped.outputs["y"])
    return assemble(
        [(embedded, {"y": "e"}), (clamped, {"x": "e", "y": "e8"}), (pooled, {"x": "e8"})],
        ["y"],
    )


GRAPH_BENCHMARKS: dict[str, Callable[[], Graph]] = {
    "x 6×5 → linear → requant → add x → pool": lambda: residual_pool_example(6, 5, 1),
    "ids 3 → embed (V=6, d=4) → requant → pool": lambda: embed_pool_example(3, 6, 4, 2),
    "x 5×7 → qkv → requant ×3 → attn (2 heads of 3)": lambda: attention_block_example(
        5, 7, 2, 3, False, 0
    ),
    "x 3×5 → linear → requant → gelu → linear": lambda: ffn_example(3, 5, 6, 3),
    "x 4×6 → linear → requant → add x → layernorm": lambda: residual_norm_example(4, 6, 4),
    "x 32×384 → qkv → requant ×3 → attn (12 heads of 32)": lambda: attention_block_example(
        32, 384, 12, 32, False, 0
    ),
}
"""Model walks verified on chain by `cairn bench graphs`, weights committed (docs/model-walk.md,
"On chain")."""

COMMITTED_IO_GRAPH_BENCHMARKS: dict[str, Callable[[], Graph]] = {
    "x 128×384 → qkv → requant ×3 → attn (12 heads of 32) → requant → linear (W_o)": lambda: (
        attention_layer_example(128, 384, 12, 32, False, 0)
    ),
    "x 128×384 → linear (W₁, 1536) → requant → gelu → linear (W₂)": lambda: ffn_example(
        128, 384, 1536, 0
    ),
}
"""A whole MiniLM attention layer and a MiniLM feed-forward block at 128 tokens, measured by
`cairn bench graphs --commit-io`: their public x and output alone (12,288 felts) exceed a
transaction's calldata."""
