"""A tiny synthetic MiniLM (one layer, d = 8, random weights) laid out like the model package's
folder: what the import and the model-proof CLI run on in the suite (the real model's import
commits for minutes; its figures are in the README)."""

import json
import shutil
import struct
from pathlib import Path

import numpy as np

from cairn.models.minilm import source

DTYPE_NAMES = {np.dtype("<f4"): "F32", np.dtype("<f8"): "F64", np.dtype("<i8"): "I64"}
TINY = {"layers": 1, "d": 8, "heads": 2, "ffn": 16, "vocab": 30522, "positions": 64}


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """A minimal safetensors writer (the format the reader parses)."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, arr in tensors.items():
        raw = np.ascontiguousarray(arr).tobytes()
        header[name] = {
            "dtype": DTYPE_NAMES[arr.dtype],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def write_tiny_folder(folder: Path) -> Path:
    """A 1-layer d = 8 BERT with random weights and the package's tokenizer, in `folder`."""
    shutil.copy(source.model_dir() / "tokenizer.json", folder / "tokenizer.json")
    config = {
        "hidden_act": "gelu",
        "position_embedding_type": "absolute",
        "num_hidden_layers": TINY["layers"],
        "hidden_size": TINY["d"],
        "num_attention_heads": TINY["heads"],
        "intermediate_size": TINY["ffn"],
        "vocab_size": TINY["vocab"],
        "max_position_embeddings": TINY["positions"],
        "layer_norm_eps": 1e-12,
    }
    (folder / "config.json").write_text(json.dumps(config))
    rng = np.random.default_rng(4)
    shapes = source.expected_shapes(source.Config.from_json(config))
    tensors = {n: (rng.normal(0, 0.3, s) + (n.endswith("LayerNorm.weight"))).astype("<f4")
               for n, s in shapes.items()}  # fmt: skip
    write_safetensors(folder / "model.safetensors", tensors)
    return folder
