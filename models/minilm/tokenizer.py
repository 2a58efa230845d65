"""The package's own tokenizer.json (BERT WordPiece, lower-casing) through `tokenizers`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer as HfTokenizer

from cairn.models.minilm.source import MAX_TOKENS, model_dir


@dataclass(frozen=True)
class Tokens:
    """Token ids of one sentence, [CLS] first and [SEP] last; `truncated` says whether the
    text was longer than the limit and lost its tail."""

    ids: np.ndarray
    truncated: bool


class Tokenizer:
    def __init__(self, folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        path = (folder or model_dir()) / "tokenizer.json"
        try:
            self._tok = HfTokenizer.from_file(str(path))
        except Exception as e:  # the Rust side raises its own exception type
            raise ValueError(f"{path}: cannot load the tokenizer ({e})") from None
        self._tok.no_padding()
        self._tok.enable_truncation(max_tokens)
        self.max_tokens = max_tokens

    def encode(self, text: str) -> Tokens:
        """ValueError on text with no tokens (empty or only whitespace/control characters)."""
        enc = self._tok.encode(text)
        if len(enc.ids) <= 2:
            raise ValueError("empty text: nothing to embed")
        return Tokens(np.array(enc.ids, dtype=np.int64), bool(enc.overflowing))
