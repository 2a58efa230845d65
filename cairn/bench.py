"""`cairn bench matmul | layers | pcs`: prover and verifier speed, memory and proof sizes, and
L2 gas on a devnet.

Timings are the best of --repeat runs; peak memory is measured in a separate run under
tracemalloc (numpy reports its buffers to it) so its overhead does not touch the timings.
"""

from __future__ import annotations

import asyncio
import json
import platform
import resource
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table
from starknet_py.net.account.account import Account

from cairn import examples, softmax_accuracy
from cairn.console import errors_as_exit, fail, out
from cairn.deploy import contract, devnet, registry
from cairn.deploy.build import build
from cairn.deploy.toolchain import default_toolchain
from cairn.models.minilm import accuracy, walk
from cairn.models.minilm.quantized import Widths
from cairn.models_cmd import ModelName
from cairn.options import DEFAULT_WITNESS, CommitIo, CommitWeights, WitnessHash
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import P
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.graph.prover import commit_graph_io, commit_graph_weights, prove_graph
from cairn.prover.graph.verifier import verify_graph
from cairn.prover.graph.views import security_bits
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.registry import LAYERS
from cairn.prover.linalg import exact_matmul
from cairn.prover.mle import evaluate
from cairn.prover.pcs import POSEIDON_PARAMS, commit, open_batch
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, PARAMS
from cairn.prover.walk import prover as layer_walk
from cairn.prover.walk.statement import ModelBinding, Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import calldata, proof_file
from cairn.serializer.codec import proof_felts
from cairn.serializer.files import write_atomic

DEFAULT_SHAPES = ["512x512x512", "128x768x3072"]
ONCHAIN_PCS_SIZES = [16, 20]
ONCHAIN_COMMITTED_SHAPES = ["1x256x256", "1x1024x1024"]
MATMUL = LAYERS[matmul.KIND]
BENCH_MODEL = 1  # the model id the committed-weight benchmarks register their B under


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def _peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def measure(m: int, k: int, n: int, repeat: int) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (m, k), dtype=np.int64)
    b = rng.integers(-128, 128, (k, n), dtype=np.int64)
    blas_c, _ = _best(lambda: exact_matmul(a, b), repeat)
    int64_c, _ = _best(lambda: a @ b, repeat)
    st = matmul.make_statement(a, b)
    prove_s, proof = _best(lambda: layer_walk.prove_walk(MATMUL, st), repeat)
    verify_s, _ = _best(lambda: verify_walk(MATMUL, proof), repeat)
    felts = calldata.encode(proof)
    return {
        "shape": f"{m}x{k}x{n}",
        "numpy_exact_c_blas_s": blas_c,
        "numpy_int64_c_s": int64_c,
        "prove_s": prove_s,
        "prove_over_blas_c": prove_s / blas_c,
        "verify_s": verify_s,
        "prove_peak_mib": _peak_mib(lambda: layer_walk.prove_walk(MATMUL, st)),
        "calldata_felts": len(felts),
        "proof_felts": proof_felts(proof),
        "json_bytes": len(json.dumps(proof_file.to_json_dict(proof), separators=(",", ":"))),
    }


def _transactions(verdict: contract.OnchainVerdict) -> dict[str, object]:
    """Each transaction's calldata felts and L2 gas, and the total: every on-chain row's
    columns."""
    txs = verdict.transactions
    return {
        "tx_felts": [tx.calldata_felts for tx in txs],
        "tx_l2_gas": [tx.l2_gas for tx in txs],
        "l2_gas": verdict.l2_gas,
    }


def _on_fresh_devnet(run: Callable[[Account, int], Awaitable[None]]) -> None:
    """Start a devnet, deploy CairnVerifier from account #0, run `run(account, address)`."""
    tc = default_toolchain().require()
    art = build(tc)
    with tempfile.TemporaryDirectory() as logs, devnet.running_devnet(tc, Path(logs)) as info:
        acc = devnet.predeployed_accounts(info.url)[0]

        async def main() -> None:
            account = await contract.connect(info.url, acc.address, acc.private_key)
            dep = await contract.declare_and_deploy(account, art)
            await run(account, dep.address)

        asyncio.run(main())


def _opening(log_size: int, rng: np.random.Generator) -> calldata.PcsOpening:
    """One Poseidon commitment to 2^log_size random values and one true claim on it."""
    values = rng.integers(0, P, 1 << log_size)
    commitment, data = commit(values, POSEIDON_PARAMS)
    point = tuple(QM31Array.random(rng, log_size).to_list())
    claim = Claim(point, evaluate(values, point))
    return calldata.PcsOpening(
        [(commitment, [claim])], open_batch([(data, [claim])], Poseidon252Channel())
    )


def measure_pcs_onchain(
    log_sizes: list[int], shapes: list[tuple[int, int, int]]
) -> list[dict[str, Any]]:
    """L2 gas of verifying PCS openings (kind 2) and committed-weight matmuls (B registered as
    weight i of model BENCH_MODEL) on a devnet started for the purpose; a proof too large for
    one transaction is verified in a session."""
    rng = np.random.default_rng(0)
    proofs: list[tuple[str, calldata.OnchainProof]] = [
        (f"opening 2^{n}", _opening(n, rng)) for n in log_sizes
    ]
    entries: list[int] = []
    for i, (m, k, n) in enumerate(shapes):
        st, data = layer_walk.commit_weights(examples.matmul_example(m, k, n, i), POSEIDON_PARAMS)
        entries += calldata.commitment_entry(st.committed["b"])
        st = replace(st, binding=ModelBinding(BENCH_MODEL, 0, {"b": i}))
        proofs.append((f"committed matmul {m}x{k}x{n}", layer_walk.prove_walk(MATMUL, st, data)))
    rows = []

    async def run(account: Account, address: int) -> None:
        if entries:
            await registry.register_model(account, address, BENCH_MODEL, 0, entries)
        for what, proof in proofs:
            parts = calldata.encode_parts(proof)
            verdict = await contract.verify_parts(account, address, parts)
            if not verdict.accepted:
                raise contract.ChainError(f"{what} rejected on chain: {verdict.reason}")
            rows.append(
                {
                    "proof": what,
                    "calldata_felts": len(parts.flat),
                    "transactions": [
                        {"calldata_felts": t.calldata_felts, "l2_gas": t.l2_gas}
                        for t in verdict.transactions
                    ],
                    "l2_gas": verdict.l2_gas,
                    "fee_fri": verdict.fee_fri,
                }
            )

    _on_fresh_devnet(run)
    return rows


def _parse(shape: str) -> tuple[int, int, int]:
    try:
        m, k, n = (int(x) for x in shape.lower().split("x"))
    except ValueError:
        raise fail(f"shape {shape!r}: expected MxKxN, e.g. 512x512x512") from None
    if min(m, k, n) < 1:
        raise fail(f"shape {shape!r}: dimensions must be >= 1")
    return m, k, n


def _writable(path: Path | None) -> Path | None:
    """Refuse an --out whose folder is missing before measuring, not after."""
    if path is not None and not path.parent.is_dir():
        raise typer.BadParameter(f"{path.parent} is not a directory")
    return path


BenchOut = Annotated[
    Path | None, typer.Option("--out", help="also write JSON here", callback=_writable)
]

bench_app = typer.Typer(help="Measure speed, memory and proof sizes.", no_args_is_help=True)


def _measure_layer(
    name: str, build: Callable[[], Statement], repeat: int, commit: str | None
) -> dict[str, Any]:
    statement = build()
    spec = LAYERS[statement.kind]
    commit_s, data = 0.0, None
    if commit and statement.weights:
        commit_s, (statement, data) = _best(
            lambda: layer_walk.commit_weights(statement, PARAMS[commit]), repeat
        )
    prove_s, proof = _best(lambda: layer_walk.prove_walk(spec, statement, data), repeat)
    verify_s, _ = _best(lambda: verify_walk(spec, proof), repeat)
    return {
        "layer": name,
        "dims": list(statement.dims),
        "weights": commit if data else "public",
        "commit_s": commit_s,
        "prove_s": prove_s,
        "verify_s": verify_s,
        "prove_peak_mib": _peak_mib(lambda: layer_walk.prove_walk(spec, statement, data)),
        "proof_felts": proof_felts(proof),
    }


def _committed(statement: Statement, weights: str | None, io: str | None) -> list[str]:
    """The tensors a benchmark commits: the weights, and the committable inputs and outputs."""
    names = list(statement.weights) if weights else []
    return names + (layer_walk.committable_io(LAYERS[statement.kind]) if io else [])


def measure_layers_onchain(
    commit: str | None,
    commit_io: str | None = None,
    minilm: bool = False,
    witness: str = DEFAULT_WITNESS_HASH,
) -> list[dict[str, Any]]:
    """Calldata, transactions and L2 gas of verifying each `ONCHAIN_BENCHMARKS` proof (with
    `minilm`, each `MINILM_ONCHAIN` one; witness trees of hash `witness`) on a devnet started
    for the purpose (a session when one transaction is not enough)."""
    rows = []
    benchmarks = examples.MINILM_ONCHAIN if minilm else examples.ONCHAIN_BENCHMARKS
    hashes = {h for h in (commit, commit_io) if h}
    if len(hashes) > 1:
        raise ValueError("--commit-weights and --commit-io must use one hash (one opening)")

    async def run(account: Account, address: int) -> None:
        for name, make in benchmarks.items():
            statement = make()
            data = None
            if names := _committed(statement, commit, commit_io):
                hash_ = next(iter(hashes))
                statement, data = layer_walk.commit_tensors(statement, names, PARAMS[hash_])
            proof = layer_walk.prove_walk(LAYERS[statement.kind], statement, data, witness)
            parts = calldata.encode_parts(proof)
            verdict = await contract.verify_parts(account, address, parts)
            if not verdict.accepted:
                raise contract.ChainError(f"{name} rejected on chain: {verdict.reason}")
            txs = verdict.transactions
            rows.append(
                {
                    "layer": name,
                    "weights": (commit or "public") if statement.weights else "none",
                    "io": commit_io if set(names) - set(statement.weights) else "public",
                    "calldata_felts": len(parts.flat),
                    "transactions": len(txs),
                    "max_tx_felts": max(tx.calldata_felts for tx in txs),
                    "max_tx_l2_gas": max(tx.l2_gas for tx in txs),
                    **_transactions(verdict),
                }
            )

    _on_fresh_devnet(run)
    return rows


@bench_app.command("layers")
def bench_layers(
    repeat: Annotated[int, typer.Option(min=1, help="runs per timing (best is kept)")] = 3,
    out_path: BenchOut = None,
    commit_weights: CommitWeights = None,
    onchain: Annotated[
        bool, typer.Option("--onchain", help="verify the on-chain kinds on a fresh devnet")
    ] = False,
    commit_io: CommitIo = None,
    minilm: Annotated[
        bool, typer.Option("--minilm", help="with --onchain: MiniLM's attention shapes")
    ] = False,
    witness_hash: WitnessHash = DEFAULT_WITNESS,
) -> None:
    """Prove and verify each layer at its reference size (benchmarks/README.md); with
    --onchain, the L2 gas of verifying each kind the contract reads."""
    if onchain:
        with errors_as_exit(), out.status("proving and verifying on a devnet"):
            hash_ = commit_weights.value if commit_weights else None
            io = commit_io.value if commit_io else None
            rows = measure_layers_onchain(hash_, io, minilm, witness_hash.value)
        table = Table("layer", "weights", "I/O", "calldata", "txs", "largest tx", "L2 gas")
        for r in rows:
            table.add_row(
                r["layer"],
                r["weights"],
                r["io"],
                f"{r['calldata_felts']:,} felts",
                str(r["transactions"]),
                f"{r['max_tx_felts']:,} felts, {r['max_tx_l2_gas']:,} gas",
                f"{r['l2_gas']:,}",
            )
        _report(table, rows, out_path)
        return
    rows = []
    with errors_as_exit(), out.status("benchmarking") as status:
        for name, build in examples.BENCHMARKS.items():
            status.update(f"benchmarking {name}")
            hash_ = commit_weights.value if commit_weights else None
            rows.append(_measure_layer(name, build, repeat, hash_))
    table = Table("layer", "weights", "commit", "prove", "verify", "prover peak", "proof")
    for r in rows:
        table.add_row(
            r["layer"],
            r["weights"],
            f"{r['commit_s'] * 1e3:.0f} ms",
            f"{r['prove_s'] * 1e3:.0f} ms",
            f"{r['verify_s'] * 1e3:.0f} ms",
            f"{r['prove_peak_mib']:.0f} MiB",
            f"{r['proof_felts']} felts",
        )
    _report(table, rows, out_path)


def measure_graphs_onchain(
    io: str | None = None, witness: str = DEFAULT_WITNESS_HASH
) -> list[dict[str, Any]]:
    """Calldata, transactions and L2 gas of each `GRAPH_BENCHMARKS` model walk, weights
    committed (Poseidon), witness trees of hash `witness`, on a devnet started for the purpose;
    with `io` (a hash: the weights' too) their inputs and outputs committed as well, and
    `COMMITTED_IO_GRAPH_BENCHMARKS` too.
    A walk over one transaction's L2 gas cap (8·10^8) goes in a session cut between its nodes.
    A walk one of whose nodes alone exceeds the cap is measured without it and marked:
    sessions cut between parts."""
    rows = []
    params = PARAMS[io or "poseidon"]
    graphs = examples.GRAPH_BENCHMARKS | (examples.COMMITTED_IO_GRAPH_BENCHMARKS if io else {})

    async def run(account: Account, address: int) -> None:
        for name, make in graphs.items():
            graph, hidden = make()
            graph, data = commit_graph_weights(graph, params)
            if io:
                graph, hidden, io_data = commit_graph_io(graph, hidden, params)
                data |= io_data
            parts = calldata.encode_parts(prove_graph(graph, hidden, data, witness_hash=witness))
            capped = True
            try:
                verdict = await contract.verify_parts(account, address, parts)
            except contract.ChainError:
                capped = False
                verdict = await contract.verify_parts(account, address, parts, max_gas=10**10)
            if not verdict.accepted:
                raise contract.ChainError(f"{name} rejected on chain: {verdict.reason}")
            rows.append(
                {
                    "graph": name,
                    "io": io or "public",
                    "nodes": len(graph.nodes),
                    "calldata_felts": len(parts.flat),
                    "within_cap": capped,
                    **_transactions(verdict),
                }
            )

    _on_fresh_devnet(run)
    return rows


@bench_app.command("graphs")
def bench_graphs(
    out_path: BenchOut = None,
    commit_io: CommitIo = None,
    witness_hash: WitnessHash = DEFAULT_WITNESS,
) -> None:
    """Verify model walks on a fresh devnet: calldata, transactions, L2 gas (docs/model-walk.md,
    "On chain"); with --commit-io their inputs and outputs committed, and MiniLM's attention
    block at 128 tokens."""
    with errors_as_exit(), out.status("proving and verifying model walks on a devnet"):
        rows = measure_graphs_onchain(commit_io.value if commit_io else None, witness_hash.value)
    table = Table("graph", "I/O", "nodes", "calldata", "transactions (felts: L2 gas)", "L2 gas")
    for r in rows:
        pairs = zip(r["tx_felts"], r["tx_l2_gas"], strict=True)
        txs = " · ".join(f"{f:,}: {g:,}" for f, g in pairs)
        note = "" if r["within_cap"] else " (a node over the 8·10^8 cap)"
        cells = (r["graph"], r["io"], str(r["nodes"]), f"{r['calldata_felts']:,}", txs)
        table.add_row(*cells, f"{r['l2_gas']:,}{note}")
    _report(table, rows, out_path)


def _report(table: Table, rows: list[dict[str, Any]], out_path: Path | None) -> None:
    out.print(table)
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, numpy {np.__version__}"
    out.print(f"machine: {machine}")
    if out_path:
        with errors_as_exit():
            write_atomic(out_path, json.dumps({"machine": machine, "results": rows}, indent=2))


@bench_app.command("softmax")
def bench_softmax(
    seq: Annotated[
        list[int] | None, typer.Option(min=1, max=2048, help="sequence length (repeatable)")
    ] = None,
    out_path: BenchOut = None,
) -> None:
    """Accuracy of the proven softmax against float64 on realistic attention logits (h = 12,
    m = 32; docs/layers/attn.md): per-row L1 distance to softmax(γ·S) and to the temperature
    proven (c/2^F), the bound any accepted row meets, the relative error of A·V. --out keeps
    every field, the int8 rounding of Q and K alone among them."""
    rng = np.random.default_rng(0)
    rows = []
    with errors_as_exit(), out.status("measuring"):
        for s in seq or [128, 512]:
            for causal in (False, True):
                rows += softmax_accuracy.accuracy_rows(s, 32, causal, rng)
    table = Table("logits", "s", "mask", "|R−2^θ|≤ε", "L1 max", "L1 (c/2^F)", "bound", "A·V err")
    for r in rows:
        table.add_row(
            r["case"],
            str(r["s"]),
            "causal" if r["causal"] else "-",
            f"{r['norm_max']}≤{r['eps']}",
            *(f"{r[k]:.1e}" for k in ("l1_max", "l1_max_proven", "l1_bound", "av_rel_err")),
        )
    _report(table, rows, out_path)


@bench_app.command("pcs")
def bench_pcs(
    onchain: Annotated[
        bool, typer.Option(help="measure L2 gas of on-chain verification on a fresh devnet")
    ] = False,
    log_size: Annotated[
        list[int] | None, typer.Option(min=0, max=23, help="opening of 2^N values (repeatable)")
    ] = None,
    shape: Annotated[
        list[str] | None, typer.Option(help="committed-weight matmul MxKxN (repeatable)")
    ] = None,
    out_path: BenchOut = None,
) -> None:
    """On-chain cost of PCS openings and committed-weight matmuls (Poseidon commitments, the
    contract's parameters); commit/open/verify times are `python benchmarks/pcs.py`."""
    if not onchain:
        raise fail("only --onchain is measured here; off-chain figures: python benchmarks/pcs.py")
    shapes = [_parse(s) for s in shape or ONCHAIN_COMMITTED_SHAPES]
    sizes = ONCHAIN_PCS_SIZES if log_size is None else log_size
    with errors_as_exit(), out.status("proving, then verifying on a devnet"):
        rows = measure_pcs_onchain(sizes, shapes)
    table = Table("proof", "calldata", "transactions (felts: L2 gas)", "L2 gas", "fee")
    for r in rows:
        txs = ", ".join(f"{t['calldata_felts']}: {t['l2_gas']:,}" for t in r["transactions"])
        table.add_row(
            r["proof"],
            f"{r['calldata_felts']} felts",
            txs,
            f"{r['l2_gas']:,}",
            f"{r['fee_fri']:,} FRI",
        )
    _report(table, rows, out_path)


def _widths(specs: list[str]) -> Widths:
    """KIND=BITS overrides of the default widths (docs/models/minilm.md)."""
    kinds = Widths().as_json()
    overrides = {}
    for spec in specs:
        kind, _, bits = spec.partition("=")
        if kind not in kinds or not bits.isdigit() or not 1 <= int(bits) <= 30:
            raise fail(f"--width {spec!r}: expected KIND=BITS with KIND in {', '.join(kinds)}")
        overrides[kind] = int(bits)
    return Widths(**overrides)


@bench_app.command("accuracy")
def bench_accuracy(
    name: Annotated[ModelName, typer.Argument(help="the model")],
    width: Annotated[
        list[str] | None, typer.Option(help="KIND=BITS: override a default width (repeatable)")
    ] = None,
    out_path: BenchOut = None,
) -> None:
    """Cosine of the integer pipeline's embeddings to the float64 reference on the shipped
    evaluation sentences (calibrated on the disjoint calibration sentences)."""
    widths = _widths(width or [])
    with errors_as_exit(), out.status(f"calibrating and running {name.value}"):
        acc, bounds = accuracy.run(widths)
    row = acc.as_json() | {"widths": widths.as_json(), "worst_case_log2": bounds}
    table = Table("metric", "value")
    table.add_row("sentences", str(acc.n))
    table.add_row("cosine min / mean", f"{min(acc.cosines):.5f} / {row['cosine_mean']:.5f}")
    table.add_row("same nearest neighbour", f"{acc.same_neighbour} / {acc.n}")
    table.add_row("same 5 nearest", f"{acc.same_top5} / {acc.n}")
    table.add_row("integer forward", f"{row['int_forward_s_per_sentence'] * 1e3:.0f} ms/sentence")
    table.add_row("largest value", f"2^{max(acc.max_log2.values()):.2f} (limit 2^30)")
    over = [k for k, v in bounds.items() if v >= 30]
    table.add_row("worst case >= 2^30", ", ".join(over) or "none")
    table.add_row("clamped values", str(sum(acc.clamped.values())))
    _report(table, [row], out_path)


@bench_app.command("matmul")
def bench(
    shape: Annotated[list[str] | None, typer.Option(help="MxKxN (repeatable)")] = None,
    repeat: Annotated[int, typer.Option(min=1, help="runs per timing (best is kept)")] = 3,
    out_path: BenchOut = None,
) -> None:
    """Measure the matmul prover against numpy computing C exactly, the verifier, and sizes
    (L2 gas: `cairn bench layers --onchain`)."""
    shapes = [_parse(s) for s in shape or DEFAULT_SHAPES]
    rows = []
    with errors_as_exit(), out.status("benchmarking") as status:
        for m, k, n in shapes:
            status.update(f"benchmarking {m}×{k}×{n}")
            rows.append(measure(m, k, n, repeat))
    table = Table(
        "shape",
        "C: BLAS exact",
        "C: int64 @",
        "prove (excl. C)",
        "prove / C",
        "verify",
        "prover peak",
        "calldata",
        "JSON",
    )
    for r in rows:
        table.add_row(
            r["shape"],
            f"{r['numpy_exact_c_blas_s'] * 1e3:.1f} ms",
            f"{r['numpy_int64_c_s'] * 1e3:.1f} ms",
            f"{r['prove_s'] * 1e3:.1f} ms",
            f"{r['prove_over_blas_c']:.1f}×",
            f"{r['verify_s'] * 1e3:.1f} ms",
            f"{r['prove_peak_mib']:.0f} MiB",
            f"{r['calldata_felts']} felts",
            f"{r['json_bytes'] / 1e6:.1f} MB",
        )
    _report(table, rows, out_path)


@bench_app.command("model")
def bench_model(
    name: Annotated[ModelName, typer.Argument(help="the model")],
    tokens: Annotated[int, typer.Option(min=3, max=128, help="input length in tokens")] = 128,
    out_path: BenchOut = None,
) -> None:
    """Prove and verify the whole encoder on a `tokens`-long input of the shipped evaluation
    text (calibrated in process, as `cairn model import` does): prove and verify time, peak
    memory, proof size, soundness, and where the prover's time goes, by stage and layer kind
    (witness: computing and committing a layer's advice; walk: its proof)."""
    with errors_as_exit(), out.status("calibrating") as status:
        model = accuracy.calibrated_model(Widths())
        ids = accuracy.evaluation_tokens(tokens)
        status.update(f"building the walk over {len(ids)} tokens")
        graph, hidden = walk.build(model, ids)
        spent: dict[str, float] = {}
        mark: list[Any] = [time.perf_counter(), ""]

        def report(stage: str, i: int, kind: str) -> None:
            """Time since the last report goes to the last stage (and kind)."""
            now = time.perf_counter()
            if mark[1]:
                spent[mark[1]] = spent.get(mark[1], 0.0) + now - mark[0]
            mark[:] = [now, f"{stage}: {kind}" if kind else stage]
            status.update(f"proving: {mark[1]} ({i + 1}/{len(graph.nodes)})")

        start = time.perf_counter()
        proof = prove_graph(graph, hidden, progress=report)
        prove_s = time.perf_counter() - start
        report("", -1, "")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        status.update("verifying")
        verify_s, _ = _best(lambda: verify_graph(proof), 1)
    row = {
        "model": name.value,
        "tokens": len(ids),
        "nodes": len(graph.nodes),
        "prove_s": prove_s,
        "peak_rss_mib": peak,
        "verify_s": verify_s,
        "proof_felts": proof_felts(proof),
        "bits": security_bits(proof.statement),
        "prove_s_by_kind": spent,
    }
    table = Table("metric", "value")
    table.add_row("input", f"{len(ids)} tokens, {len(graph.nodes)} layers in one walk")
    table.add_row("prove", f"{prove_s:.1f} s (peak RSS {peak:,.0f} MiB, the process's)")
    table.add_row("verify", f"{verify_s:.2f} s")
    table.add_row("proof", f"{row['proof_felts']:,} felts, {row['bits']:.1f} bits")
    for kind, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        table.add_row(f"  {kind}", f"{seconds:.1f} s")
    _report(table, [row], out_path)
