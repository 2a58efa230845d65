"""`cairn prove <kind>`: one command per layer kind, generated from its example
(cairn/examples.py LAYER_EXAMPLES), so a kind with an example builder has a command without
one being written; and `cairn prove qkv-attn`, a graph of layers proven as one walk."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from cairn import examples
from cairn.console import errors_as_exit, fail, out, stages
from cairn.options import (
    DEFAULT_WITNESS,
    Causal,
    CommitIo,
    CommitWeights,
    ConfigHash,
    Dim,
    Hash,
    ModelId,
    ProofOut,
    Seed,
    WitnessHash,
    bound_model,
)
from cairn.proofs import describe, dims_text
from cairn.prover.graph.prover import commit_graph_io, commit_graph_weights, prove_graph
from cairn.prover.graph.statement import GraphStatement
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.walk.prover import commit_tensors, committable_io, prove_walk
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.serializer import proof_file, tensor_file
from cairn.serializer.codec import proof_felts
from cairn.serializer.files import write_together

prove_app = typer.Typer(help="Create proofs.", no_args_is_help=True)


@dataclass(frozen=True)
class WeightChoice:
    """What a command's weight options ask for: commit to the weights with this hash, and bind
    them to a registered model (id, config hash), each weight at its index in `indices`, else
    at its rank by name."""

    commit: Hash | None = None
    model: tuple[int, int] | None = None
    indices: dict[str, int] | None = None
    io: Hash | None = None
    witness: Hash = DEFAULT_WITNESS


def _no_weights() -> WeightChoice:
    return WeightChoice()


def _commit_and_bind(
    commit_weights: CommitWeights = None, model_id: ModelId = None, config_hash: ConfigHash = "0x0"
) -> WeightChoice:
    return WeightChoice(commit_weights, bound_model(commit_weights, model_id, config_hash))


CommitB = Annotated[
    Hash | None,
    typer.Option(
        "--commit-weights",
        "--commit-b",
        help="bind B by a PCS commitment with this hash instead of publishing B",
    ),
]
WeightIndex = Annotated[
    int, typer.Option(min=0, max=2**32 - 1, help="B's index among the model's commitments")
]


def _commit_and_bind_b(
    commit_weights: CommitB = None,
    model_id: ModelId = None,
    weight: WeightIndex = 0,
    config_hash: ConfigHash = "0x0",
) -> WeightChoice:
    """A matmul's one weight B, at the index --weight gives it: any weight of a registered
    model can be proven alone this way (docs/layers/matmul.md)."""
    model = bound_model(commit_weights, model_id, config_hash)
    return WeightChoice(commit_weights, model, {"b": weight})


def weight_options(kind: str) -> Callable[..., WeightChoice]:
    """The kind's weight options, as a function whose parameters declare them: none for a kind
    without weights; else --commit-weights, --model-id and --config-hash (the registry they
    bind to is on chain). Matmul names its weight B."""
    if kind == matmul.KIND:
        return _commit_and_bind_b
    if not LAYERS[kind].has_weights:
        return _no_weights
    return _commit_and_bind


def _io_choice(commit_io: CommitIo = None) -> Hash | None:
    return commit_io


def _witness_choice(witness_hash: WitnessHash = DEFAULT_WITNESS) -> Hash:
    return witness_hash


def _committed_names(kind: str, statement: Statement, choice: WeightChoice) -> list[str]:
    """The tensors to commit: the weights (--commit-weights) and the committable inputs and
    outputs (--commit-io), all of one hash."""
    if choice.commit and choice.io and choice.commit != choice.io:
        raise fail("--commit-weights and --commit-io must use one hash (one opening)")
    names = list(statement.weights) if choice.commit else []
    if choice.io:
        names += committable_io(LAYERS[kind])
    return names


def io_path(out_path: Path) -> Path:
    """Where `prove --commit-io` keeps the committed inputs' and outputs' values."""
    return out_path.with_name(out_path.name.removesuffix(".json") + ".io.json")


def prove_layer(
    kind: str, build: Callable[[], Statement], out_path: Path | None, choice: WeightChoice
) -> None:
    """Build the statement (the forward pass), commit and bind its tensors as asked, prove it,
    write the file atomically (and, with committed inputs and outputs, their values beside it)."""
    out_path = out_path or Path(f"{kind}.proof.json")
    with errors_as_exit(), stages() as progress:
        progress.add_task(f"computing the {kind} layer")
        statement = build()
        names = _committed_names(kind, statement, choice)
        data = None
        if names:
            hash_ = (choice.commit or choice.io).value  # type: ignore[union-attr]
            progress.add_task(f"committing to {', '.join(names)} ({hash_})")
            statement, data = commit_tensors(statement, names, PARAMS[hash_])
        if choice.model:
            ranks = {name: i for i, name in enumerate(sorted(statement.weights))}
            binding = ModelBinding(*choice.model, choice.indices or ranks)
            statement = replace(statement, binding=binding)
        progress.add_task(f"proving {kind} {dims_text(statement)}")
        proof = prove_walk(LAYERS[kind], statement, data, choice.witness.value)
        tensors = {**statement.inputs, **statement.outputs}
        io = {n: tensors[n] for n in names if n in tensors}
        files = {io_path(out_path): tensor_file.dumps(io)} if io else {}
        write_together({**files, out_path: proof_file.dumps(proof)})
    out.print(f"wrote {out_path} ({describe(proof)}, {proof_felts(proof)} proof felts)")
    if io:
        _kept(out_path, io)


def _options(function: Callable[..., Any]) -> list[inspect.Parameter]:
    """A function's parameters as keyword options, their Annotated types resolved."""
    parameters = inspect.signature(function, eval_str=True).parameters.values()
    return [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters]


def layer_command(kind: str, example: examples.LayerExample) -> Callable[..., None]:
    """`cairn prove <kind>`: the example builder's parameters, then the kind's weight options,
    --commit-io, --witness-hash for a kind with witness, then --out, as the signature typer
    reads; its help is the example's."""
    choose = weight_options(kind)
    weight_names = inspect.signature(choose).parameters
    witness = LAYERS[kind].advise is not None

    def command(out_path: Path | None = None, **options: Any) -> None:
        weights = choose(**{name: options.pop(name) for name in weight_names})
        weights = replace(weights, io=_io_choice(options.pop("commit_io")))
        if witness:
            weights = replace(weights, witness=_witness_choice(options.pop("witness_hash")))
        prove_layer(kind, lambda: example.build(**options), out_path, weights)

    out_option = inspect.Parameter(
        "out_path", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ProofOut
    )
    extra = [*_options(_io_choice), *(_options(_witness_choice) if witness else [])]
    parameters = [*_options(example.build), *_options(choose), *extra, out_option]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__doc__ = example.help
    return command


def add_layer_commands(app: typer.Typer) -> None:
    """A `prove <kind>` command per kind with an example, in LAYER_EXAMPLES' order."""
    for kind, example in examples.LAYER_EXAMPLES.items():
        app.command(kind)(layer_command(kind, example))


add_layer_commands(prove_app)


def _prove_graph(
    name: str,
    build: Callable[[], tuple[GraphStatement, dict[str, np.ndarray]]],
    out_path: Path | None,
    commit: Hash | None = None,
    io: Hash | None = None,
    model: tuple[int, int] | None = None,
    witness: Hash = DEFAULT_WITNESS,
) -> None:
    """Build the graph (the forward pass of every layer), commit its weights and its inputs and
    outputs as asked, bind the weights to `model` (id, config hash; each weight's index its
    rank by name), prove it as one walk, write the file (and the committed I/O's values)."""
    out_path = out_path or Path(f"{name}.proof.json")
    if commit and io and commit != io:
        raise fail("--commit-weights and --commit-io must use one hash (one opening)")
    with errors_as_exit(), stages() as progress:
        progress.add_task(f"computing the {name} layers")
        graph, hidden = build()
        data = {}
        if commit:
            progress.add_task(f"committing to the weights ({commit.value})")
            graph, data = commit_graph_weights(graph, PARAMS[commit.value])
        if model:
            ranks = {name: i for i, name in enumerate(sorted(graph.committed))}
            graph = replace(graph, binding=ModelBinding(*model, ranks))
        values = {}
        if io:
            values = {**graph.inputs, **graph.outputs}
            progress.add_task(f"committing to {', '.join(sorted(values))} ({io.value})")
            graph, hidden, io_data = commit_graph_io(graph, hidden, PARAMS[io.value])
            data |= io_data
        progress.add_task(f"proving {len(graph.nodes)} layers as one walk")
        proof = prove_graph(graph, hidden, data, witness_hash=witness.value)
        files = {io_path(out_path): tensor_file.dumps(values)} if values else {}
        write_together({**files, out_path: proof_file.dumps(proof)})
    out.print(f"wrote {out_path} ({describe(proof)}, {proof_felts(proof)} proof felts)")
    if values:
        _kept(out_path, values)


def _kept(out_path: Path, values: dict[str, np.ndarray]) -> None:
    out.print(
        f"wrote {io_path(out_path)}: the values of {', '.join(sorted(values))}, which the proof "
        f"binds by commitment only; keep it: `cairn verify {out_path} --io "
        f"{io_path(out_path)}` checks them against the proof"
    )


@prove_app.command("qkv-attn")
def prove_qkv_attn_cmd(
    seq: Dim = 128,
    embed: Dim = 384,
    heads: Dim = 12,
    head_dim: Dim = 32,
    causal: Causal = False,
    seed: Seed = 0,
    commit_weights: CommitWeights = None,
    commit_io: CommitIo = None,
    witness_hash: WitnessHash = DEFAULT_WITNESS,
    model_id: ModelId = None,
    config_hash: ConfigHash = "0x0",
    out_path: ProofOut = None,
) -> None:
    """Prove x → QKV projection → requantization to int8 → attention with softmax as one walk
    (docs/model-walk.md): x, the weights and the output are public or committed; Q, K, V
    (before and after requantization), the scores and the softmax matrix appear nowhere in the
    proof."""
    _prove_graph(
        "qkv-attn",
        lambda: examples.attention_block_example(seq, embed, heads, head_dim, causal, seed),
        out_path,
        commit_weights,
        commit_io,
        bound_model(commit_weights, model_id, config_hash),
        witness_hash,
    )
