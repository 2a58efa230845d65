"""How close the integer pipeline's embeddings are to the float64 reference's, on sentences
shipped with Cairn (calibration and evaluation sets are disjoint)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib import resources

import numpy as np

from cairn.models.minilm import calibrate, quantized, reference, source
from cairn.models.minilm.quantized import QuantModel, Trace, Widths
from cairn.models.minilm.source import Weights
from cairn.models.minilm.tokenizer import Tokenizer


def sentences(name: str) -> list[str]:
    """The shipped sentence set `name` (calibration, evaluation): one sentence per line."""
    text = (resources.files("cairn.models.minilm") / "data" / f"{name}.txt").read_text()
    return [line.strip() for line in text.splitlines() if line.strip()]


def float_embeddings(w: Weights, ids: list[np.ndarray]) -> np.ndarray:
    """The reference embeddings, one sentence at a time (no padding involved)."""
    return np.stack([reference.forward(w, t[None, :], np.ones((1, len(t)), bool))[0] for t in ids])


@dataclass(frozen=True)
class Accuracy:
    """Cosines between integer and float embeddings; how many sentences keep their nearest
    neighbour and their set of 5 nearest (by cosine among the other sentences)."""

    cosines: list[float]
    same_neighbour: int
    same_top5: int
    max_log2: dict[str, float]
    clamped: dict[str, int]
    int_seconds: float

    @property
    def n(self) -> int:
        return len(self.cosines)

    def as_json(self) -> dict[str, object]:
        return {
            "sentences": self.n,
            "cosine_min": min(self.cosines),
            "cosine_mean": float(np.mean(self.cosines)),
            "same_nearest_neighbour": self.same_neighbour,
            "same_top5": self.same_top5,
            "max_log2": self.max_log2,
            "clamped": self.clamped,
            "int_forward_s_per_sentence": self.int_seconds / self.n,
        }


def _rankings(emb: np.ndarray) -> np.ndarray:
    """Row i: the other sentences ordered by decreasing cosine with sentence i."""
    sim = emb @ emb.T
    np.fill_diagonal(sim, -np.inf)
    return np.argsort(-sim, axis=1, kind="stable")[:, :-1]


def calibrated_model(widths: Widths, w: Weights | None = None) -> QuantModel:
    """The installed model calibrated with `widths` on the calibration sentences (what
    `cairn model import` records)."""
    w, tok = w or source.load(), Tokenizer()
    cal = [tok.encode(s).ids for s in sentences("calibration")]
    return calibrate.quantize(w, calibrate.observe(w, cal), widths)


def evaluation_tokens(count: int) -> np.ndarray:
    """`count` token ids of the evaluation sentences run together: [CLS] … [SEP], truncated
    (a long realistic input for benchmarks)."""
    tok = Tokenizer(max_tokens=count)
    return tok.encode(" ".join(sentences("evaluation"))).ids


def run(widths: Widths) -> tuple[Accuracy, dict[str, float]]:
    """Calibrate with `widths` on the calibration sentences, measure on the evaluation ones.
    Also returns each matmul's worst-case log2 bound from the widths alone."""
    w, tok = source.load(), Tokenizer()
    ev = [tok.encode(s).ids for s in sentences("evaluation")]
    model = calibrated_model(widths, w)
    return measure(model, ev, float_embeddings(w, ev)), calibrate.worst_case_log2(model)


def measure(model: QuantModel, ids: list[np.ndarray], ref: np.ndarray) -> Accuracy:
    """Run the integer pipeline on every sentence and compare with the reference embeddings."""
    trace = Trace()
    start = time.perf_counter()
    emb = np.stack([quantized.forward(model, t, trace).embedding() for t in ids])
    seconds = time.perf_counter() - start
    cos = np.sum(emb * ref, axis=1)
    ranks_int, ranks_ref = _rankings(emb), _rankings(ref)
    return Accuracy(
        [float(x) for x in cos],
        int(np.sum(ranks_int[:, 0] == ranks_ref[:, 0])),
        sum(set(a[:5]) == set(b[:5]) for a, b in zip(ranks_int, ranks_ref, strict=True)),
        trace.max_log2(),
        {k: v for k, v in trace.clamped.items() if v},
        seconds,
    )
