"""`cairn bench`: prover and verifier speed, memory and proof size (benchmarks/README.md).

Timings are the best of --repeat runs; peak memory is measured in a separate run under
tracemalloc (numpy reports its buffers to it) so its overhead does not touch the timings.
"""

from __future__ import annotations

import json
import platform
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table

from cairn.console import fail, out
from cairn.prover.linalg import exact_matmul
from cairn.prover.matmul.prover import make_instance, prove_matmul
from cairn.prover.matmul.verifier import verify_matmul
from cairn.serializer import calldata, proof_file

DEFAULT_SHAPES = ["512x512x512", "128x768x3072"]


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
    inst = make_instance(a, b)
    prove_s, proof = _best(lambda: prove_matmul(inst), repeat)
    verify_s, _ = _best(lambda: verify_matmul(proof), repeat)
    felts = calldata.encode(proof)
    return {
        "shape": f"{m}x{k}x{n}",
        "numpy_exact_c_blas_s": blas_c,
        "numpy_int64_c_s": int64_c,
        "prove_s": prove_s,
        "prove_over_blas_c": prove_s / blas_c,
        "verify_s": verify_s,
        "prove_peak_mib": _peak_mib(lambda: prove_matmul(inst)),
        "calldata_felts": len(felts),
        "sumcheck_felts": sum(1 + len(r) for r in proof.sumcheck.rounds) + 1,
        "json_bytes": len(json.dumps(proof_file.to_json_dict(proof), separators=(",", ":"))),
    }


def _parse(shape: str) -> tuple[int, int, int]:
    try:
        m, k, n = (int(x) for x in shape.lower().split("x"))
    except ValueError:
        raise fail(f"shape {shape!r}: expected MxKxN, e.g. 512x512x512") from None
    if min(m, k, n) < 1:
        raise fail(f"shape {shape!r}: dimensions must be >= 1")
    return m, k, n


def bench(
    shape: Annotated[list[str] | None, typer.Option(help="MxKxN (repeatable)")] = None,
    repeat: Annotated[int, typer.Option(min=1, help="runs per timing (best is kept)")] = 3,
    out_path: Annotated[Path | None, typer.Option("--out", help="also write JSON here")] = None,
) -> None:
    """Measure the matmul prover against numpy computing C exactly, the verifier, and sizes."""
    shapes = [_parse(s) for s in shape or DEFAULT_SHAPES]
    rows = []
    with out.status("benchmarking") as status:
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
    out.print(table)
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, numpy {np.__version__}"
    out.print(f"machine: {machine}")
    if out_path:
        out_path.write_text(json.dumps({"machine": machine, "results": rows}, indent=2))
