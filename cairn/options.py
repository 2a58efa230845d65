"""The options several commands share, each declared once (name, default, range and help in its
`Annotated` type), and how a matrix option's file is read: the example builders
(cairn/examples.py) take the same types, so `cairn prove <kind>` shows a dimension or a seed
like every other command."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from cairn.console import fail
from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.fields.m31 import HALF
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH

Dim = Annotated[int, typer.Option(min=1, max=1 << 20, help="dimension (padded to a power of 2)")]
Seed = Annotated[int, typer.Option(help="seed of the random int8 tensors")]
Causal = Annotated[bool, typer.Option(help="mask future tokens")]
ProofOut = Annotated[Path | None, typer.Option("--out", help="proof file [KIND.proof.json]")]


class Hash(StrEnum):
    """The Merkle hash of a weight commitment (docs/merkle.md)."""

    poseidon = "poseidon"
    blake2s = "blake2s"


CommitWeights = Annotated[
    Hash | None,
    typer.Option(help="bind the weights by PCS commitments with this hash instead of publishing"),
]
CommitIo = Annotated[
    Hash | None,
    typer.Option(
        help="bind the inputs and outputs by PCS commitments with this hash instead of "
        "publishing them (their values go to PROOF.io.json); the statement on chain is then a "
        "few roots"
    ),
]
DEFAULT_WITNESS = Hash(DEFAULT_WITNESS_HASH)
"""`--witness-hash`'s default: the prover's (`prover.pcs.params.DEFAULT_WITNESS_HASH`)."""
WitnessHash = Annotated[
    Hash,
    typer.Option(
        help="the Merkle hash of the layers' witness commitments: blake2s commits them ≈ 70× "
        'faster, poseidon costs less to verify on chain (docs/pcs.md, "Which tree hash")'
    ),
]
ModelId = Annotated[
    str | None,
    typer.Option(
        help="bind the committed weights to this registered model, weight i being the i-th "
        "committed weight by name (docs/registry.md)"
    ),
]
ConfigHash = Annotated[str, typer.Option(help="the model's registered configuration hash (0x…)")]


def parse_felt(option: str, value: str, nonzero: bool = False) -> int:
    """A felt252 argument as 0x… hex or decimal; a clear error (exit 2) otherwise."""
    try:
        felt = int(value, 0)
    except ValueError:
        raise fail(f"{option} {value!r}: expected 0x… hex or a decimal number") from None
    if not (1 if nonzero else 0) <= felt < STARK_PRIME:
        raise fail(f"{option} {value!r}: must be a felt252{' other than 0' if nonzero else ''}")
    return felt


def bound_model(
    commit: Hash | None, model_id: str | None, config_hash: str
) -> tuple[int, int] | None:
    """(model id, config hash) from the options, if a model is named; it binds committed
    weights only."""
    if model_id is None:
        return None
    if commit is None:
        raise fail("--model-id binds committed weights: give --commit-weights too")
    return parse_felt("--model-id", model_id, nonzero=True), parse_felt(
        "--config-hash", config_hash
    )


def load_matrix(path: Path, name: str) -> np.ndarray:
    """A user's integer matrix from a .npy file (no pickles); ValueError, which the CLI shows
    as a one-line error, for anything else."""
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ValueError(f"{name} {path}: cannot read a .npy matrix ({e})") from None
    if arr.ndim != 2 or arr.dtype.kind not in "iu" or 0 in arr.shape:
        got = f"{arr.dtype} {arr.shape}"
        raise ValueError(f"{name} {path}: expected a non-empty 2-D integer matrix, got {got}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > HALF:
        raise ValueError(f"{name} {path}: entries outside the signed M31 range |x| <= {HALF}")
    return arr.astype(np.int64)
