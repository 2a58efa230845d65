"""`cairn prove model minilm`: text in, one model-walk proof of the whole encoder out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from cairn.console import errors_as_exit, fail, out
from cairn.models.minilm import walk
from cairn.models.minilm.tokenizer import Tokenizer
from cairn.options import DEFAULT_WITNESS, ConfigHash, Hash, ModelId, WitnessHash, bound_model
from cairn.prover.graph.declared import certify
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.prover import prove_graph
from cairn.prover.layers.embed.model import token_ids
from cairn.prover.walk.statement import ModelBinding
from cairn.serializer import proof_file
from cairn.serializer.codec import proof_felts

prove_model_app = typer.Typer(
    help="Prove a real model's forward pass on your input (docs/models/).", no_args_is_help=True
)

ModelFile = Annotated[
    Path,
    typer.Option("--model-file", help="the model file `cairn model import minilm` wrote"),
]
DEFAULT_MODEL_FILE = Path(walk.model_file.FILE_NAME)


@prove_model_app.command("minilm")
def prove_minilm(
    text: Annotated[str, typer.Option("--text", help="the sentence to embed")],
    model_path: ModelFile = DEFAULT_MODEL_FILE,
    out_path: Annotated[Path, typer.Option("--out", help="proof file")] = Path("minilm.proof.json"),
    commit_weights: Annotated[
        Hash | None,
        typer.Option(
            help="bind every weight by its commitment (poseidon: the model file's) instead of "
            "referring to the public weights, each read at its declared range; the file then "
            "carries the range walks certifying the declarations (for verify-onchain; minutes)"
        ),
    ] = None,
    model_id: ModelId = None,
    config_hash: ConfigHash = "0x0",
    witness_hash: WitnessHash = DEFAULT_WITNESS,
) -> None:
    """Tokenize TEXT with the model's own tokenizer, run the quantized encoder and prove every
    layer of it as one walk: the token ids and the pooled embedding are public, every
    activation in between is hidden (docs/models/minilm.md, "Proof")."""
    model = bound_model(commit_weights, model_id, config_hash)
    if commit_weights is Hash.blake2s:
        raise fail("--commit-weights blake2s: the model file's commitments are poseidon's")
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn())
    with errors_as_exit(), Progress(*columns, TimeElapsedColumn(), transient=True) as progress:
        task = progress.add_task("loading the model", total=None)
        imported = walk.load_imported(model_path)
        tokens = Tokenizer().encode(text)
        progress.update(task, description=f"running the encoder on {len(tokens.ids)} tokens")
        graph, hidden = walk.build(imported.model, tokens.ids, declare=bool(commit_weights))
        data = {}
        if commit_weights:

            def advance(name: str, i: int, n: int) -> None:
                progress.update(task, description=f"committing {name}", completed=i, total=n)

            graph, data = walk.commit_weights(graph, imported, advance)
            if model:
                ranks = {name: i for i, name in enumerate(sorted(graph.committed))}
                graph = replace(graph, binding=ModelBinding(*model, ranks))
        n = len(graph.nodes)

        def report(stage: str, i: int, kind: str) -> None:
            done = {"witness": i, "checks": n, "walk": 2 * n - 1 - i}.get(stage, 2 * n)
            what = f"{stage} {i + 1}/{n} ({kind})" if kind else stage
            progress.update(task, description=what, completed=done, total=2 * n)

        proof = prove_graph(graph, hidden, data, report, witness_hash.value)
        certificates = []
        if graph.declared:
            progress.update(task, description="certifying the declared weight ranges", total=None)
            certificates = certify(graph.declared, graph.committed, graph.weights, data)
        progress.update(task, description=f"writing {out_path}")
        weights_from = None if commit_weights else walk.MODEL
        proof_file.save(proof, out_path, weights_from, certificates)
    if tokens.truncated:
        out.print(f"the text is longer than {Tokenizer().max_tokens} tokens: its tail was cut")
    felts = proof_felts(proof) + sum(proof_felts(c) for c in certificates)
    weights = "weights by reference"
    if commit_weights:
        walks = f"{len(certificates)} range walk" + "s" * (len(certificates) != 1)
        weights = f"{len(graph.committed)} weights committed, {walks} certifying their "
        weights += "declared ranges"
        weights += f", bound to model {model[0]:#x}" if model else ""
    out.print(
        f"wrote {out_path} (all-MiniLM-L6-v2 on {len(tokens.ids)} tokens, {n} layers, "
        f"{weights}; {felts} proof felts)"
    )


def model_outputs(proof: GraphProof, model_path: Path) -> dict[str, Any]:
    """What `inspect --json` prints of a model proof: the token ids, and the pooled embedding
    as the proven integers with their scale and as floats (the mean, and L2-normalised)."""
    g = proof.statement
    ids = next((list(token_ids(n.dims)) for n in g.nodes if n.kind == "embed"), [])
    pooled = g.outputs[walk.POOLED].astype(np.int64)
    scale = walk.output_scale(walk.load_imported(model_path).model)
    mean = pooled.astype(np.float64) / max(len(ids), 1) * 2.0**-scale
    return {
        "tokens": ids,
        "embedding": {
            "sum": pooled.tolist(),
            "count": len(ids),
            "scale": scale,
            "mean": mean.tolist(),
            "normalized": (mean / np.linalg.norm(mean)).tolist(),
        },
    }
