"""all-MiniLM-L6-v2's integer forward pass as one model walk (docs/models/minilm.md, "Proof").

Every step of quantized.py becomes a layer statement of a registered kind, wired by tensor
names into a graph (prover/graph/): the token ids are public (embed's dims), the pooled sum and
the LayerNorm row statistics are the public outputs, every other activation is hidden. The
builder plans each requantization's input bits and each LayerNorm's limb width from the bound
the verifier will derive for its input (prover/graph/views.py), not from the values it sees."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from cairn.models.minilm import model_file
from cairn.models.minilm.quantized import SOFTMAX_SCALE, Pass, QuantModel, Trace
from cairn.prover.graph.declared import WeightRange
from cairn.prover.graph.prover import assemble
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.graph.views import Bound, output_bounds
from cairn.prover.layers.add import model as add
from cairn.prover.layers.attn import model as attn
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.gelu import model as gelu
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.pool import model as pool
from cairn.prover.layers.qkv import model as qkv
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.range.relations import LIMB_BITS
from cairn.prover.layers.requant import model as requant
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.prover import CommitmentData, commit_tensor
from cairn.prover.walk.statement import Statement

POOLED = "pooled"
"""The graph's output: the sum of the last LayerNorm's rows over the real tokens."""


def block_rows(model: QuantModel) -> int:
    """Rows per word-embedding block: the blocks the model file commits."""
    c = model.config
    return embed.pcs_block_rows(c.vocab, c.d, POSEIDON_PARAMS.max_n_vars)


def graph_weights(model: QuantModel) -> dict[str, np.ndarray]:
    """The graph's weights by name: the model's, with the word embeddings in row blocks. What
    the builder wires and what a verifier rebuilds from the installed model."""
    weights = {n: w for n, w in model.weights.items() if n != WORD}
    word, rows = model.weights[WORD], block_rows(model)
    for j, start in enumerate(range(0, len(word), rows)):
        weights[graph_name(WORD, j)] = word[start : start + rows]
    return weights


WORD = "embed.word"
"""The word embeddings: the one model weight the graph holds in row blocks."""


def graph_name(weight: str, block: int) -> str:
    """The graph's name of a model weight's row block (the word embeddings' `embed.word_j`, any
    other weight's one block its own name)."""
    return f"{weight}_{block}" if weight == WORD else weight


def _summed(name: str, w: np.ndarray) -> bool:
    """Column sums for every weight of at most 16 bits but the word embeddings (a gather reads
    only their magnitude, and |w| of 30,522 × 384 entries would outgrow a witness stack)."""
    return not name.startswith("embed.word") and range_check.bits_of(w, True) <= LIMB_BITS


def declarations(weights: dict[str, np.ndarray]) -> dict[str, WeightRange]:
    """Every weight at its fewest bits (docs/models/minilm.md, "Committed weights")."""
    return {name: WeightRange.of(w, _summed(name, w)) for name, w in weights.items()}


@dataclass
class _Builder:
    model: QuantModel
    declared: dict[str, WeightRange] = field(default_factory=dict)
    """Weights the verifier knows only by their declared ranges (committed)."""
    layers: list[tuple[Statement, dict[str, str]]] = field(default_factory=list)
    bounds: dict[str, Bound | None] = field(default_factory=dict)
    """The verifier's bound on every hidden tensor so far, by graph name."""

    def f(self, name: str) -> int:
        return self.model.scales[name]

    def add(self, st: Statement, names: dict[str, str]) -> Statement:
        hidden = {
            local: self.bounds[names.get(local, local)]
            for local in st.inputs
            if names.get(local, local) in self.bounds
        }
        view = {
            local: self.declared[name].worst(w.shape)
            for local, w in st.weights.items()
            if (name := names.get(local, local)) in self.declared
        }
        for local, bound in output_bounds(
            replace(st, weights={**st.weights, **view}), hidden
        ).items():
            self.bounds[names.get(local, local)] = bound
        self.layers.append((st, names))
        return st

    def requant(self, site: str, source: str, x: np.ndarray, shift: int) -> np.ndarray:
        """R(x; shift, bits[site]) with input bits from x's bound (the actual peak if none)."""
        bound = self.bounds[source]
        a = (bound.max if bound is not None else int(np.abs(x).max())).bit_length()
        st = requant.make_statement(x, 1, shift, self.model.bits[site], a)
        return self.add(st, {"x": source, "y": site}).outputs["y"]

    def linear(self, site: str, source: str, x: np.ndarray, f_x: int, w: str, b: str) -> np.ndarray:
        """x·W + b (`linear`), then R(·; f_x + f_W − f_site, b_site) (`requant`)."""
        weights = {"w": self.model.weights[w], "b": self.model.weights[b]}
        acc = self.add(
            linear.make_statement(x, weights), {"x": source, "w": w, "b": b, "y": site + ".acc"}
        ).outputs["y"]
        return self.requant(site, site + ".acc", acc, f_x + self.f(w) - self.f(site))

    def layer_norm(self, name: str, source: str, h: np.ndarray, f_h: int) -> np.ndarray:
        """quantized.py's LayerNorm, its limbs wide enough for h's bound (the verifier's)."""
        m = self.model
        gamma, beta = m.weights[name + ".gamma"], m.weights[name + ".beta"]
        p = Pass(m, Trace()).layer_norm_params(name, h, f_h)
        bound = self.bounds[source]
        if bound is not None:
            widest = layernorm.limb_bits(np.array([bound.max]))
            p = replace(p, limb_bits=max(p.limb_bits, widest))
        st = layernorm.make_statement(h, gamma, beta, p)
        names = {
            "h": source,
            "gamma": name + ".gamma",
            "beta": name + ".beta",
            "s1": name + ".s1",
            "s2": name + ".s2",
            "y": name,
        }
        return self.add(st, names).outputs["y"]


def build(
    model: QuantModel, ids: np.ndarray, declare: bool = False
) -> tuple[GraphStatement, dict[str, np.ndarray]]:
    """The graph of one forward pass over `ids` and its hidden tensors' values; `declare`: every
    weight's range declared (`declarations`), the widths planned for the weights read as
    declared (what committed weights need to hold over the integers; the range proofs over their
    commitments are `prover.graph.declared.certify`'s)."""
    every = graph_weights(model)
    c, b = model.config, _Builder(model, declarations(every) if declare else {})
    f = b.f
    word, position = model.weights["embed.word"], model.weights["embed.position"]
    st = embed.make_statement(ids, word, position, block_rows(model))
    blocks = {name: f"embed.{name}" for name in st.weights if name.startswith("word_")}
    h = b.add(st, {**blocks, "position": "embed.position", "y": "embed.sum"}).outputs["y"]
    x, x_name = b.layer_norm("embed.ln", "embed.sum", h, f("embed.word")), "embed.ln"
    f_x = f("embed.ln")
    for i in range(c.layers):
        p = f"layer{i}."
        weights = {f"{w}_{j}": model.weights[f"{p}{w}_{j}"] for w in "wb" for j in "qkv"}
        st = qkv.make_statement(x, weights)
        names = {"x": x_name} | {n: p + n for n in weights} | {j: f"{p}{j}.acc" for j in "qkv"}
        b.add(st, names)
        q, k, v = (
            b.requant(p + j, f"{p}{j}.acc", st.outputs[j], f_x + f(f"{p}w_{j}") - f(p + j))
            for j in "qkv"
        )
        log2_gamma = -f(p + "q") - f(p + "k")
        st = attn.make_statement(q, k, v, c.heads, False, 2.0**log2_gamma)
        av = b.add(st, {"q": p + "q", "k": p + "k", "v": p + "v", "o": p + "av"}).outputs["o"]
        ctx = b.requant(p + "ctx", p + "av", av, SOFTMAX_SCALE + f(p + "v") - f(p + "ctx"))
        out = b.linear(p + "attn", p + "ctx", ctx, f(p + "ctx"), p + "w_o", p + "b_o")
        names = {"a": x_name, "b": p + "attn", "y": p + "residual1"}
        h = b.add(add.make_statement(x, out), names).outputs["y"]
        x, x_name = b.layer_norm(p + "ln1", p + "residual1", h, f_x), p + "ln1"
        f_x = f(p + "ln1")
        g = b.linear(p + "ffn_in", x_name, x, f_x, p + "w_1", p + "b_1")
        st = gelu.make_statement(
            g,
            f(p + "ffn_in"),
            model.bits[p + "ffn_in"],
            f(p + "ffn_act"),
            model.bits[p + "ffn_act"],
        )
        a = b.add(st, {"x": p + "ffn_in", "y": p + "ffn_act"}).outputs["y"]
        out = b.linear(p + "ffn_out", p + "ffn_act", a, f(p + "ffn_act"), p + "w_2", p + "b_2")
        names = {"a": x_name, "b": p + "ffn_out", "y": p + "residual2"}
        h = b.add(add.make_statement(x, out), names).outputs["y"]
        x, x_name = b.layer_norm(p + "ln2", p + "residual2", h, f_x), p + "ln2"
        f_x = f(p + "ln2")
    b.add(pool.make_statement(x), {"x": x_name, "y": POOLED})
    stats = [n for st, names in b.layers for local, n in names.items() if local in ("s1", "s2")]
    g, hidden = assemble(b.layers, [POOLED, *stats])
    return replace(g, declared={n: r for n, r in b.declared.items() if n in g.weights}), hidden


MODEL = "minilm"
"""The name a proof file gives the model its weights come from (`weights_from`)."""


def load_imported(path: Path) -> model_file.Imported:
    """The imported model (scales, widths) with its weights rebuilt from the package."""
    if not path.is_file():
        raise ValueError(
            f"{path}: no imported model here; run `cairn model import minilm` once "
            "(a few minutes), or pass --model-file"
        )
    return model_file.load(path)


def commit_weights(
    g: GraphStatement,
    imported: model_file.Imported,
    advance: Callable[[str, int, int], None] = lambda *_: None,
) -> tuple[GraphStatement, dict[str, CommitmentData]]:
    """Commit every graph weight (Poseidon, as the import did) and check each root is the one
    the model file records, so the proof binds the imported weights. The import keeps the roots,
    not the Merkle trees a proof's openings read: they are rebuilt here (minutes for the whole
    model). `advance(weight, done, total)` counts the weights."""
    recorded = {
        graph_name(name, j): block.committed
        for name, blocks in imported.blocks.items()
        for j, block in enumerate(blocks)
    }
    committed, data = {}, {}
    names = sorted(g.weights)
    for i, name in enumerate(names):
        advance(name, i, len(names))
        committed[name], data[name] = commit_tensor(g.weights[name], POSEIDON_PARAMS)
        if recorded.get(name) != committed[name]:
            raise ValueError(
                f"{imported.path}: its commitment of {name} is not the weights' (an import of "
                "other weights?); run `cairn model import minilm` again"
            )
    advance("every weight", len(names), len(names))
    return replace(g, committed={**g.committed, **committed}), data


def weight_source(path: Path) -> Callable[[str], dict[str, np.ndarray]]:
    """What a proof file with `weights_from: minilm` refers to: the graph weights of the model
    imported at `path` (the file's digests then confirm they are the same)."""

    def weights(name: str) -> dict[str, np.ndarray]:
        if name != MODEL:
            raise ValueError(f"the proof's weights are those of model {name!r}, unknown here")
        return graph_weights(load_imported(path).model)

    return weights


def output_scale(model: QuantModel) -> int:
    """f of the pooled sum: the last LayerNorm's output scale."""
    return model.scales[f"layer{model.config.layers - 1}.ln2"]
