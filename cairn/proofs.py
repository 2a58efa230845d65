"""`cairn prove | verify | calldata | inspect`: the off-chain path."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from cairn import examples
from cairn.console import EXIT_REJECTED, errors_as_exit, fail, out
from cairn.model_proofs import DEFAULT_MODEL_FILE, ModelFile, model_outputs
from cairn.models.minilm import walk
from cairn.prover.channels.poseidon import STARK_PRIME
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.prover import commit_graph_weights, prove_graph
from cairn.prover.graph.statement import GraphStatement, Node
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import mod_p_relations
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.pcs.prover import commit_tensor
from cairn.prover.ranges import mod_p_only
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import calldata, commitment_file, proof_file
from cairn.serializer.codec import proof_felts
from cairn.serializer.files import write_atomic
from cairn.serializer.walk_calldata import ONCHAIN_KINDS, is_onchain

prove_app = typer.Typer(help="Create proofs.", no_args_is_help=True)

Dim = Annotated[int, typer.Option(min=1, max=1 << 20, help="dimension (padded to a power of 2)")]
Seed = Annotated[int, typer.Option(help="seed of the random int8 tensors")]
Causal = Annotated[bool, typer.Option(help="mask future tokens")]
ProofOut = Annotated[Path | None, typer.Option("--out", help="proof file [KIND.proof.json]")]


class Hash(StrEnum):
    """The Merkle hash of a weight commitment (docs/merkle.md)."""

    poseidon = "poseidon"
    blake2s = "blake2s"


def _stages() -> Progress:
    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True
    )


def _load_matrix(path: Path, name: str) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise fail(f"--{name} {path}: cannot read a .npy matrix ({e})") from None
    if arr.ndim != 2 or arr.dtype.kind not in "iu" or 0 in arr.shape:
        got = f"{arr.dtype} {arr.shape}"
        raise fail(f"{name} {path}: expected a non-empty 2-D integer matrix, got {got}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > HALF:
        raise fail(f"{name} {path}: entries outside the signed M31 range |x| <= {HALF}")
    return arr.astype(np.int64)


ConfigHash = Annotated[str, typer.Option(help="the model's registered configuration hash (0x…)")]


def _dims_text(st: Statement | Node) -> str:
    """The dims by name (`s=128 h=12 …`), then any further ones (embed's token ids) as a
    list, shortened; as numbers if the file has fewer."""
    names = LAYERS[st.kind].dim_names
    if len(names) > len(st.dims):
        return " ".join(map(str, st.dims))
    text = " ".join(f"{n}={d}" for n, d in zip(names, st.dims, strict=False))
    rest = [str(d) for d in st.dims[len(names) :]]
    if len(rest) > 8:
        rest = [*rest[:8], f"… ({len(rest)} in all)"]
    return f"{text} [{' '.join(rest)}]" if rest else text


def _shape(shape: tuple[int, ...]) -> str:
    return "×".join(map(str, shape))


def _describe(proof: proof_file.AnyProof) -> str:
    if isinstance(proof, GraphProof):
        g = proof.statement
        counts = Counter(n.kind for n in g.nodes)
        kinds = ", ".join(f"{k} ×{c}" if c > 1 else k for k, c in counts.items())
        public = [f"{group[:-1]} {n} {_shape(t.shape)}" for group in ("inputs", "outputs")
                  for n, t in getattr(g, group).items()]  # fmt: skip
        io = ", ".join(public[:4]) + (f" and {len(public) - 4} more" if len(public) > 4 else "")
        hashes = sorted({c.commitment.hash for c in g.committed.values()})
        bound = f", weights committed ({', '.join(hashes)})" if hashes else ""
        return f"graph of {len(g.nodes)} layers ({kinds}); {io}; {len(g.hidden)} hidden{bound}"
    st = proof.statement
    hashes = sorted({c.commitment.hash for c in st.committed.values()})
    bound = f", weights committed ({', '.join(hashes)})" if hashes else ""
    if st.binding is not None:
        bound += f", bound to model {st.binding.model_id:#x}"
    return f"{st.kind} {_dims_text(st)}{bound}"


CommitWeights = Annotated[
    Hash | None,
    typer.Option(help="bind the weights by PCS commitments with this hash instead of publishing"),
]


ModelId = Annotated[
    str | None,
    typer.Option(
        help="bind the committed weights to this registered model, weight i being the i-th "
        "committed weight by name (docs/registry.md)"
    ),
]


def _binding(commit: Hash | None, model_id: str | None, config_hash: str) -> tuple[int, int] | None:
    """(model id, config hash) from the options, if a model is named; it binds committed
    weights only."""
    if model_id is None:
        return None
    if commit is None:
        raise fail("--model-id binds committed weights: give --commit-weights too")
    return parse_felt("--model-id", model_id, nonzero=True), parse_felt(
        "--config-hash", config_hash
    )


def _prove_walk(
    kind: str,
    build: Callable[[], Statement],
    out_path: Path | None,
    commit: Hash | None = None,
    bind: tuple[int, int] | None = None,
    indices: dict[str, int] | None = None,
) -> None:
    """Build the statement (the forward pass), prove it, write the file atomically. A binding
    gives each committed weight its index in `indices`, else its rank by name."""
    out_path = out_path or Path(f"{kind}.proof.json")
    with errors_as_exit(), _stages() as progress:
        progress.add_task(f"computing the {kind} layer")
        statement = build()
        weight_data = None
        if commit:
            progress.add_task(f"committing to the weights ({commit.value})")
            statement, weight_data = commit_weights(statement, PARAMS[commit.value])
        if bind:
            ranks = {name: i for i, name in enumerate(sorted(statement.committed))}
            statement = replace(statement, binding=ModelBinding(*bind, indices or ranks))
        progress.add_task(f"proving {kind} {_dims_text(statement)}")
        proof = prove_walk(LAYERS[kind], statement, weight_data)
        proof_file.save(proof, out_path)
    out.print(f"wrote {out_path} ({_describe(proof)}, {proof_felts(proof)} proof felts)")


def _prove_graph(
    name: str,
    build: Callable[[], tuple[GraphStatement, dict[str, np.ndarray]]],
    out_path: Path | None,
    commit: Hash | None = None,
) -> None:
    """Build the graph (the forward pass of every layer), prove it as one walk, write the file."""
    out_path = out_path or Path(f"{name}.proof.json")
    with errors_as_exit(), _stages() as progress:
        progress.add_task(f"computing the {name} layers")
        graph, hidden = build()
        weight_data = None
        if commit:
            progress.add_task(f"committing to the weights ({commit.value})")
            graph, weight_data = commit_graph_weights(graph, PARAMS[commit.value])
        progress.add_task(f"proving {len(graph.nodes)} layers as one walk")
        proof = prove_graph(graph, hidden, weight_data)
        proof_file.save(proof, out_path)
    out.print(f"wrote {out_path} ({_describe(proof)}, {proof_felts(proof)} proof felts)")


@prove_app.command("matmul")
def prove_matmul_cmd(
    m: Dim = 128,
    k: Dim = 256,
    n: Dim = 64,
    seed: Seed = 0,
    a: Annotated[Path | None, typer.Option(help="A as a .npy integer matrix (m x k)")] = None,
    b: Annotated[Path | None, typer.Option(help="B as a .npy integer matrix (k x n)")] = None,
    commit_weights: Annotated[
        Hash | None,
        typer.Option(
            "--commit-weights",
            "--commit-b",
            help="bind B by a PCS commitment with this hash instead of publishing B",
        ),
    ] = None,
    model_id: ModelId = None,
    weight: Annotated[
        int, typer.Option(min=0, max=2**32 - 1, help="B's index among the model's commitments")
    ] = 0,
    config_hash: ConfigHash = "0x0",
    out_path: ProofOut = None,
) -> None:
    """Prove C = A·B. Random int8 A (m×k) and B (k×n) from --seed unless --a/--b are given.
    With --commit-weights and --model-id the proof holds for that registered weight only."""
    rng = np.random.default_rng(seed)

    def build() -> Statement:
        a_mat = _load_matrix(a, "--a") if a else rng.integers(-128, 128, (m, k), dtype=np.int64)
        b_mat = _load_matrix(b, "--b") if b else rng.integers(-128, 128, (k, n), dtype=np.int64)
        return matmul.make_statement(a_mat, b_mat)

    bind = _binding(commit_weights, model_id, config_hash)
    _prove_walk("matmul", build, out_path, commit_weights, bind, {"b": weight})


@prove_app.command("posenc")
def prove_posenc_cmd(
    seq: Dim = 100,
    context: Dim = 512,
    embed: Dim = 384,
    seed: Seed = 0,
    commit_weights: CommitWeights = None,
    model_id: ModelId = None,
    config_hash: ConfigHash = "0x0",
    out_path: ProofOut = None,
) -> None:
    """Prove O = X + P[:seq] for random int8 X (seq×embed) and table P (context×embed)."""
    if seq > context:
        raise fail(f"--seq {seq} exceeds --context {context}")
    _prove_walk(
        "posenc",
        lambda: examples.posenc_example(seq, context, embed, seed),
        out_path,
        commit_weights,
        _binding(commit_weights, model_id, config_hash),
    )


@prove_app.command("qkv")
def prove_qkv_cmd(
    seq: Dim = 128,
    embed: Dim = 384,
    hidden: Dim = 384,
    seed: Seed = 0,
    commit_weights: CommitWeights = None,
    model_id: ModelId = None,
    config_hash: ConfigHash = "0x0",
    out_path: ProofOut = None,
) -> None:
    """Prove Q, K, V = X·W + B for random int8 X (seq×embed), W (embed×hidden) and biases."""
    _prove_walk(
        "qkv",
        lambda: examples.qkv_example(seq, embed, hidden, seed),
        out_path,
        commit_weights,
        _binding(commit_weights, model_id, config_hash),
    )


@prove_app.command("linear")
def prove_linear_cmd(
    seq: Dim = 128,
    embed: Dim = 384,
    out_dim: Dim = 1536,
    seed: Seed = 0,
    commit_weights: CommitWeights = None,
    model_id: ModelId = None,
    config_hash: ConfigHash = "0x0",
    out_path: ProofOut = None,
) -> None:
    """Prove Y = X·W + b for random int8 X (seq×embed), W (embed×out-dim) and bias b."""
    _prove_walk(
        "linear",
        lambda: examples.linear_example(seq, embed, out_dim, seed),
        out_path,
        commit_weights,
        _binding(commit_weights, model_id, config_hash),
    )


@prove_app.command("add")
def prove_add_cmd(
    rows: Dim = 128,
    cols: Dim = 384,
    seed: Seed = 0,
    out_path: ProofOut = None,
) -> None:
    """Prove the residual add Y = A + B for random int8 A and B (rows×cols)."""
    _prove_walk("add", lambda: examples.add_example(rows, cols, seed), out_path)


@prove_app.command("qkv-decode")
def prove_qkv_decode_cmd(
    steps: Dim = 4,
    context: Dim = 256,
    embed: Dim = 384,
    hidden: Dim = 384,
    prefill: Annotated[
        int | None,
        typer.Option(min=0, help="rows already cached before the first step [context - steps]"),
    ] = None,
    seed: Seed = 0,
    commit_weights: CommitWeights = None,
    model_id: ModelId = None,
    config_hash: ConfigHash = "0x0",
    out_path: ProofOut = None,
) -> None:
    """Prove a run of decode steps: new q, k, v rows and the KV caches after every step."""
    cached = context - steps if prefill is None else prefill
    if cached < 0 or cached + steps > context:
        raise fail(f"prefill {cached} + steps {steps} must fit in --context {context}")
    _prove_walk(
        "qkv-decode",
        lambda: examples.decode_example(steps, context, cached, embed, hidden, seed),
        out_path,
        commit_weights,
        _binding(commit_weights, model_id, config_hash),
    )


@prove_app.command("mha")
def prove_mha_cmd(
    seq: Dim = 128,
    heads: Dim = 12,
    head_dim: Dim = 32,
    causal: Causal = False,
    seed: Seed = 0,
    out_path: ProofOut = None,
) -> None:
    """Prove multi-head attention around softmax (QKᵀ with masking, A·V, padding/unpadding).

    Softmax is not proven by this kind: its input S_M and output A are public in the proof
    (`prove attn` proves it)."""
    _prove_walk("mha", lambda: examples.mha_example(seq, heads, head_dim, causal, seed), out_path)


@prove_app.command("attn")
def prove_attn_cmd(
    seq: Dim = 128,
    heads: Dim = 12,
    head_dim: Dim = 32,
    causal: Causal = False,
    gamma: Annotated[
        float | None,
        typer.Option(min=0.0, help="logit scale γ: softmax of γ·QKᵀ [2^-12/√head_dim]"),
    ] = None,
    seed: Seed = 0,
    out_path: ProofOut = None,
) -> None:
    """Prove attention with softmax inside for random Q, K, V in [−127, 127]: the scores and
    the softmax matrix appear nowhere in the proof (docs/layers/attn.md)."""
    _prove_walk(
        "attn",
        lambda: examples.attn_example(seq, heads, head_dim, causal, gamma, seed),
        out_path,
    )


@prove_app.command("embed")
def prove_embed_cmd(
    seq: Dim = 128,
    vocab: Dim = 30522,
    dim: Dim = 384,
    positions: Dim = 512,
    seed: Seed = 0,
    commit_weights: CommitWeights = None,
    out_path: ProofOut = None,
) -> None:
    """Prove y = word[ids] + position[:seq] for random token ids and int8 tables word
    (vocab×dim, in blocks one commitment holds) and position (positions×dim)."""
    if seq > positions:
        raise fail(f"--seq {seq} exceeds --positions {positions}")
    _prove_walk(
        "embed",
        lambda: examples.embed_example(seq, vocab, dim, positions, seed),
        out_path,
        commit_weights,
    )


@prove_app.command("pool")
def prove_pool_cmd(
    seq: Dim = 128, dim: Dim = 384, seed: Seed = 0, out_path: ProofOut = None
) -> None:
    """Prove y = Σ_i x[i] (the mean pooling's numerator) for random int8 x (seq×dim)."""
    _prove_walk("pool", lambda: examples.pool_example(seq, dim, seed), out_path)


@prove_app.command("requant")
def prove_requant_cmd(
    rows: Dim = 128,
    cols: Dim = 384,
    multiplier: Annotated[int, typer.Option(min=1, help="public multiplier M")] = 181,
    shift: Annotated[int, typer.Option(min=1, help="shift k: divide by 2^k, round half up")] = 22,
    bits: Annotated[int, typer.Option(min=1, help="output bits b: clamp to ±(2^(b−1) − 1)")] = 8,
    seed: Seed = 0,
    out_path: ProofOut = None,
) -> None:
    """Prove y = clamp(⌊(x·M + 2^(k−1))/2^k⌋) for random wide x (|x| < 2^22) with range
    lookups on the committed remainders (docs/layers/requant.md)."""
    _prove_walk(
        "requant",
        lambda: examples.requant_example(rows, cols, multiplier, shift, bits, seed),
        out_path,
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
    out_path: ProofOut = None,
) -> None:
    """Prove x → QKV projection → requantization to int8 → attention with softmax as one walk
    (docs/model-walk.md): x, the weights and the output are public; Q, K, V (before and after
    requantization), the scores and the softmax matrix appear nowhere in the proof."""
    _prove_graph(
        "qkv-attn",
        lambda: examples.attention_block_example(seq, embed, heads, head_dim, causal, seed),
        out_path,
        commit_weights,
    )


@prove_app.command("gelu")
def prove_gelu_cmd(
    rows: Dim = 128,
    cols: Dim = 1536,
    seed: Seed = 0,
    out_path: ProofOut = None,
) -> None:
    """Prove y = GELU table[x] for random x of 15 signed bits (MiniLM's FFN activation, layer
    0's scales) with one lookup into the (input, output) table (docs/layers/gelu.md)."""
    _prove_walk("gelu", lambda: examples.gelu_example(rows, cols, seed), out_path)


@prove_app.command("layernorm")
def prove_layernorm_cmd(
    seq: Dim = 128,
    dim: Dim = 384,
    seed: Seed = 0,
    out_path: ProofOut = None,
) -> None:
    """Prove LayerNorm with exact integer statistics over random residual-like rows
    (|h| < 2^17), |γ| < 2^11 and |β| < 2^12: the row sums and limb sums of Σh² are public,
    the normalised rows committed witness (docs/layers/layernorm.md)."""
    _prove_walk("layernorm", lambda: examples.layernorm_example(seq, dim, seed), out_path)


def commit_cmd(
    matrix: Annotated[Path, typer.Argument(help="a .npy integer matrix (k x n)")],
    hash_: Annotated[Hash, typer.Option("--hash", help="Merkle hash of the commitment")] = (
        Hash.poseidon
    ),
    out_path: Annotated[Path | None, typer.Option("--out", help="[MATRIX.commit.json]")] = None,
) -> None:
    """Commit to a weight matrix once: the file pins it for `cairn verify --commitment`."""
    target = out_path or matrix.with_suffix(".commit.json")
    with errors_as_exit(), _stages() as progress:
        mat = _load_matrix(matrix, "MATRIX")
        progress.add_task(f"committing to a {mat.shape[0]}×{mat.shape[1]} matrix")
        committed, _ = commit_tensor(mat, PARAMS[hash_.value])
        commitment_file.save(committed, target)
    out.print(f"wrote {target} ({hash_.value} root {committed.commitment.root:#x})")


def _integers(proof: proof_file.AnyProof) -> str:
    """What an accepted statement means: relations on public operands have their no-wrap
    bounds checked (statement.range); one that reads a committed weight is true mod p only."""
    if isinstance(proof, GraphProof):
        return _graph_integers(proof.statement)
    if mod_p_only(LAYERS[proof.statement.kind].relations, proof.statement.committed):
        return "holds mod p only (committed operands are not range-checked yet)"
    return "holds over the integers"


def _graph_integers(g: GraphStatement) -> str:
    try:
        relations = mod_p_relations(g)
    except VerificationError:
        return "holds nowhere (the statement is refused)"
    if relations:
        return "holds mod p only in " + "; ".join(relations)
    return "holds over the integers"


def _check_pinned(proof: proof_file.AnyProof, pins: dict[str, CommittedTensor]) -> None:
    """Each pinned weight must be exactly the proof's weight of that name (commitment and
    shape): this is what binds a committed-weight proof to a known model."""
    committed = proof.statement.committed
    for name, pinned in pins.items():
        if committed.get(name) != pinned:
            raise VerificationError("commitment.mismatch", f"weight {name!r} is not the pinned one")


def _load_pins(specs: list[str]) -> dict[str, CommittedTensor]:
    pins = {}
    for spec in specs:
        name, _, file = spec.rpartition("=")
        pins[name or "b"] = commitment_file.load(Path(file))
    return pins


def verify(
    file: Annotated[Path, typer.Argument(help="proof file")],
    commitment: Annotated[
        list[str] | None,
        typer.Option(
            help="accept only proofs whose weight NAME is this commitment file: NAME=FILE, "
            "or FILE for the weight b (a matmul's B) (repeatable)"
        ),
    ] = None,
    model_path: ModelFile = DEFAULT_MODEL_FILE,
) -> None:
    """Verify a proof in Python. Exit 0 accepted, 1 rejected (names the check), 2 malformed."""
    with errors_as_exit():
        proof = proof_file.load(file, walk.weight_source(model_path))
        pins = _load_pins(commitment or [])
        try:
            _check_pinned(proof, pins)
            if isinstance(proof, GraphProof):
                verify_graph(proof)
            else:
                verify_walk(LAYERS[proof.statement.kind], proof)
        except VerificationError as e:
            raise fail(f"rejected: check {e.check} failed ({e.detail})", EXIT_REJECTED) from None
    out.print(f"accepted: {_describe(proof)}\nstatement {_integers(proof)}")


def parse_felt(option: str, value: str, nonzero: bool = False) -> int:
    """A felt252 argument as 0x… hex or decimal; a clear error (exit 2) otherwise."""
    try:
        felt = int(value, 0)
    except ValueError:
        raise fail(f"{option} {value!r}: expected 0x… hex or a decimal number") from None
    if not (1 if nonzero else 0) <= felt < STARK_PRIME:
        raise fail(f"{option} {value!r}: must be a felt252{' other than 0' if nonzero else ''}")
    return felt


def onchain_proof(proof: proof_file.AnyProof) -> calldata.OnchainProof:
    """What `cairn calldata` and `verify-onchain` take: a layer proof of a kind the contract
    reads."""
    if isinstance(proof, GraphProof):
        raise fail("model proofs are not verified on chain yet")
    kind = proof.statement.kind
    if not is_onchain(kind):
        kinds = ", ".join(ONCHAIN_KINDS)
        raise fail(f"{kind!r} proofs are not verified on chain yet (on chain: {kinds})")
    if proof.statement.witness:
        raise fail(f"{kind!r} proofs with witness commitments are not verified on chain yet")
    return proof


def calldata_cmd(
    file: Annotated[Path, typer.Argument(help="proof file")],
    out_path: Annotated[Path | None, typer.Option("--out", help="write here, not stdout")] = None,
) -> None:
    """The proof as felt252 calldata: a JSON array of 0x-hex felts (docs/calldata.md)."""
    with errors_as_exit():
        felts = calldata.encode(onchain_proof(proof_file.load(file)))
        text = json.dumps([hex(f) for f in felts])
        if out_path:
            write_atomic(out_path, text)
        else:
            print(text)
    typer.echo(f"{len(felts)} felts", err=out_path is None)


def inspect(
    file: Annotated[Path, typer.Argument(help="proof file")],
    as_json: Annotated[
        bool, typer.Option("--json", help="a model proof's tokens and output")
    ] = False,
    model_path: ModelFile = DEFAULT_MODEL_FILE,
) -> None:
    """Kind, dimensions, rounds and size of a proof; with --json, what a model proof states:
    its token ids and its output (the pooled embedding as integers with their scale, and as
    floats)."""
    with errors_as_exit():
        proof = proof_file.load(file, walk.weight_source(model_path))
        if as_json:
            print(json.dumps(_statement_json(proof, model_path)))
            return
    if isinstance(proof, GraphProof):
        _inspect_graph(proof, file)
        return
    st = proof.statement
    tensors = ", ".join(
        f"{g[:-1]} {n} {'×'.join(map(str, t.shape))}"
        for g in proof_file.TENSOR_GROUPS
        for n, t in getattr(st, g).items()
    )
    tensors += "".join(
        f", committed weight {n} {'×'.join(map(str, c.shape))} ({c.commitment.hash})"
        for n, c in st.committed.items()
    )
    tensors += "".join(f", witness {n} 2^{c.n_vars} ({c.hash})" for n, c in st.witness.items())
    lines = [
        f"kind          {st.kind}",
        f"dimensions    {_dims_text(st)}",
        f"tensors       {tensors}",
    ]
    if st.binding is not None:
        b = st.binding
        weights = ", ".join(f"{n} = weight {i}" for n, i in sorted(b.weights.items()))
        lines.append(f"binding       model {b.model_id:#x} (config {b.config_hash:#x}): {weights}")
    lines += [
        f"statement     if accepted, {_integers(proof)}",
        f"proof         {proof_felts(proof)} felts (QM31 values and counts)",
    ]
    try:
        lines.append(f"calldata      {len(calldata.encode(proof))} felts")
    except ValueError as e:
        lines.append(f"calldata      none: {e}")
    lines.append(f"file          {file.stat().st_size} bytes")
    out.print("\n".join(lines))


def _inspect_graph(proof: GraphProof, file: Path) -> None:
    g = proof.statement
    lines = ["kind          graph (a model walk: hidden tensors appear nowhere in the proof)"]
    for i, node in enumerate(g.nodes):
        wiring = ", ".join(
            f"{local}={name}"
            for group in ("inputs", "outputs")
            for local, name in getattr(node, group).items()
        )
        lines.append(f"node {i:<8} {node.kind} {_dims_text(node)} ({wiring})")
        lines += [
            f"              witness {n} 2^{c.n_vars} ({c.hash})" for n, c in node.witness.items()
        ]
    for group in ("inputs", "outputs", "weights"):
        for name, t in getattr(g, group).items():
            lines.append(f"{group[:-1]:<13} {name} {_shape(t.shape)}")
    for name, c in g.committed.items():
        lines.append(
            f"weight        {name} {_shape(tuple(c.shape))} committed ({c.commitment.hash})"
        )
    lines.append(f"hidden        {', '.join(f'{n} {_shape(s)}' for n, s in g.hidden.items())}")
    lines.append(f"statement     if accepted, {_integers(proof)}")
    lines.append(f"proof         {proof_felts(proof)} felts (QM31 values and counts)")
    lines.append(f"file          {file.stat().st_size} bytes")
    out.print("\n".join(lines))


def _statement_json(proof: proof_file.AnyProof, model_path: Path) -> dict[str, Any]:
    if not isinstance(proof, GraphProof):
        return {"kind": proof.statement.kind, "describe": _describe(proof)}
    g = proof.statement
    doc: dict[str, Any] = {"kind": "graph", "layers": [n.kind for n in g.nodes]}
    if walk.POOLED in g.outputs:
        doc |= model_outputs(proof, model_path)
    return doc
