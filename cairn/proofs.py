"""`cairn commit | verify | calldata | inspect`: the off-chain path for proofs `cairn prove`
wrote (cairn/prove_cmd.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from cairn.console import EXIT_REJECTED, errors_as_exit, fail, out, stages
from cairn.model_proofs import DEFAULT_MODEL_FILE, ModelFile, model_outputs
from cairn.models.minilm import walk
from cairn.options import Hash, load_matrix
from cairn.prover.errors import VerificationError
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.statement import GraphStatement, Node
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import mod_p_relations
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.pcs.prover import commit_tensor
from cairn.prover.ranges import mod_p_only
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import calldata, commitment_file, proof_file, tensor_file
from cairn.serializer.codec import proof_felts
from cairn.serializer.files import write_atomic
from cairn.serializer.graph_calldata import offchain_reason


def dims_text(st: Statement | Node) -> str:
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


def describe(proof: proof_file.AnyProof) -> str:
    """A proof in one line (`prove`, `verify`): its kind and dims, or its graph's layers and
    public tensors, and how its weights are bound."""
    if isinstance(proof, GraphProof):
        g = proof.statement
        counts = Counter(n.kind for n in g.nodes)
        kinds = ", ".join(f"{k} ×{c}" if c > 1 else k for k, c in counts.items())
        public = [f"{group[:-1]} {n} {_shape(t.shape)}" for group in ("inputs", "outputs")
                  for n, t in getattr(g, group).items()]  # fmt: skip
        public += [f"committed {n} {_shape(tuple(c.shape))}" for n, c in g.io().items()]
        io = ", ".join(public[:4]) + (f" and {len(public) - 4} more" if len(public) > 4 else "")
        hashes = sorted({c.commitment.hash for c in g.committed.values()})
        bound = f", committed ({', '.join(hashes)})" if hashes else ""
        if g.binding is not None:
            bound += f", bound to model {g.binding.model_id:#x}"
        if g.declared:
            bound += f", {len(g.declared)} weight ranges declared"
        return f"graph of {len(g.nodes)} layers ({kinds}); {io}; {len(g.hidden)} hidden{bound}"
    st = proof.statement
    hashes = sorted({c.commitment.hash for c in st.committed.values()})
    names = ", ".join(sorted(st.committed))
    bound = f", committed {names} ({', '.join(hashes)})" if hashes else ""
    if st.binding is not None:
        bound += f", bound to model {st.binding.model_id:#x}"
    return f"{st.kind} {dims_text(st)}{bound}"


def commit_cmd(
    matrix: Annotated[Path, typer.Argument(help="a .npy integer matrix (k x n)")],
    hash_: Annotated[Hash, typer.Option("--hash", help="Merkle hash of the commitment")] = (
        Hash.poseidon
    ),
    out_path: Annotated[Path | None, typer.Option("--out", help="[MATRIX.commit.json]")] = None,
) -> None:
    """Commit to a weight matrix once: the file pins it for `cairn verify --commitment`."""
    target = out_path or matrix.with_suffix(".commit.json")
    with errors_as_exit(), stages() as progress:
        mat = load_matrix(matrix, "MATRIX")
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


def _check_io(proof: proof_file.AnyProof, path: Path) -> None:
    """Each tensor of the file must be one the proof commits to, with that very commitment:
    the values a `--commit-io` proof's statement is about."""
    committed = proof.statement.committed
    tensors = tensor_file.load(path)
    if isinstance(proof, GraphProof):
        io = proof.statement.io().keys()
    else:
        spec = LAYERS[proof.statement.kind]
        io = committed.keys() & {*spec.inputs, *spec.outputs}
    if missing := io - tensors.keys():
        raise VerificationError("commitment.mismatch", f"{path} lacks {sorted(missing)}")
    for name, values in tensors.items():
        if name not in io:
            raise VerificationError("commitment.mismatch", f"the proof commits to no {name!r}")
        made, _ = commit_tensor(values, PARAMS[committed[name].commitment.hash])
        if made != committed[name]:
            raise VerificationError("commitment.mismatch", f"{name!r} is not the committed one")


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
    io: Annotated[
        Path | None,
        typer.Option(
            help="accept only if the proof's committed inputs and outputs are these values "
            "(the PROOF.io.json `cairn prove --commit-io` wrote)"
        ),
    ] = None,
    model_path: ModelFile = DEFAULT_MODEL_FILE,
) -> None:
    """Verify a proof in Python. Exit 0 accepted, 1 rejected (names the check), 2 malformed."""
    with errors_as_exit():
        proof, certificates = proof_file.load_bundle(file, walk.weight_source(model_path))
        pins = _load_pins(commitment or [])
        try:
            _check_pinned(proof, pins)
            if io is not None:
                _check_io(proof, io)
            if isinstance(proof, GraphProof):
                verify_graph(proof, certificates)
            else:
                verify_walk(LAYERS[proof.statement.kind], proof)
        except VerificationError as e:
            raise fail(f"rejected: check {e.check} failed ({e.detail})", EXIT_REJECTED) from None
    out.print(f"accepted: {describe(proof)}\nstatement {_integers(proof)}")


def onchain_proof(proof: proof_file.AnyProof) -> calldata.OnchainProof:
    """What `cairn calldata` and `verify-onchain` take: a layer proof (every kind is verified
    on chain), or a graph of the kinds graphs take on chain with committed weights
    (`graph_calldata.offchain_reason`)."""
    if isinstance(proof, GraphProof) and (reason := offchain_reason(proof.statement)):
        raise fail(reason)
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
    tensors = [
        f"{g[:-1]} {n} {'×'.join(map(str, t.shape))}"
        for g in proof_file.TENSOR_GROUPS
        for n, t in getattr(st, g).items()
    ]
    tensors += [
        f"committed {n} {'×'.join(map(str, c.shape))} ({c.commitment.hash})"
        for n, c in sorted(st.committed.items())
    ]
    tensors += [f"witness {n} 2^{c.n_vars} ({c.hash})" for n, c in st.witness.items()]
    lines = [
        f"kind          {st.kind}",
        f"dimensions    {dims_text(st)}",
        f"tensors       {', '.join(tensors)}",
    ]
    if st.binding is not None:
        b = st.binding
        weights = ", ".join(f"{n} = weight {i}" for n, i in sorted(b.weights.items()))
        lines.append(f"binding       model {b.model_id:#x} (config {b.config_hash:#x}): {weights}")
    lines += [
        f"statement     if accepted, {_integers(proof)}",
        f"proof         {proof_felts(proof)} felts (QM31 values and counts)",
    ]
    lines.append(_calldata_line(proof))
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
        lines.append(f"node {i:<8} {node.kind} {dims_text(node)} ({wiring})")
        lines += [
            f"              witness {n} 2^{c.n_vars} ({c.hash})" for n, c in node.witness.items()
        ]
    for group in ("inputs", "outputs", "weights"):
        for name, t in getattr(g, group).items():
            lines.append(f"{group[:-1]:<13} {name} {_shape(t.shape)}")
    io = g.io()
    for name, c in g.committed.items():
        role = ("output" if name in g.produced() else "input") if name in io else "weight"
        lines.append(f"{role:<13} {name} {_shape(tuple(c.shape))} committed ({c.commitment.hash})")
    lines.append(f"hidden        {', '.join(f'{n} {_shape(s)}' for n, s in g.hidden.items())}")
    lines.append(f"statement     if accepted, {_integers(proof)}")
    lines.append(f"proof         {proof_felts(proof)} felts (QM31 values and counts)")
    lines.append(_calldata_line(proof))
    lines.append(f"file          {file.stat().st_size} bytes")
    out.print("\n".join(lines))


def _calldata_line(proof: calldata.OnchainProof) -> str:
    """The proof's calldata size, or why the contract cannot read it."""
    try:
        return f"calldata      {len(calldata.encode(proof))} felts"
    except ValueError as e:
        return f"calldata      none: {e}"


def _statement_json(proof: proof_file.AnyProof, model_path: Path) -> dict[str, Any]:
    if not isinstance(proof, GraphProof):
        return {"kind": proof.statement.kind, "describe": describe(proof)}
    g = proof.statement
    doc: dict[str, Any] = {"kind": "graph", "layers": [n.kind for n in g.nodes]}
    if walk.POOLED in g.outputs:
        doc |= model_outputs(proof, model_path)
    return doc
