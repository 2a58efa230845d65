"""PCS benchmark: commit, open and verify time and opening size (benchmarks/README.md).

    .venv/bin/python benchmarks/pcs.py                     # 2^16, 2^20, 2^22, both hashes
    .venv/bin/python benchmarks/pcs.py --log-size 16 --repeat 1 --out pcs.json

`run_pcs_bench(...)` returns the rows as dicts, for `cairn bench pcs`.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon import M31_PER_FELT
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.fields.m31 import random_array
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.merkle.proof import MerkleOpening
from cairn.prover.mle import evaluate
from cairn.prover.pcs import (
    OpeningProof,
    PcsParams,
    commit,
    open_batch,
    verify_batch,
)
from cairn.prover.pcs.params import PARAMS
from cairn.serializer.pcs_calldata import DIGEST_FELTS

CHANNELS = {"poseidon": Poseidon252Channel, "blake2s": Blake2sChannel}


def opening_felts(opening: MerkleOpening, hash_name: str) -> int:
    rows = sum(math.ceil(len(row) / M31_PER_FELT) for row in opening.leaves)
    return rows + DIGEST_FELTS[hash_name] * len(opening.siblings)


def proof_felts(proof: OpeningProof, hash_name: str) -> int:
    """felt252 count of an opening proof: one felt per QM31 (1‖a‖b‖c‖d), leaf rows packed
    8 M31 per felt, digests as above, the nonce one felt; no length prefixes (the counts all
    follow from public parameters)."""
    qm31s = sum(len(r) for r in proof.merge.rounds + proof.fold.rounds)
    qm31s += len(proof.merged_values) + 1  # + final value
    openings = proof.poly_openings + proof.layer_openings
    return (
        qm31s
        + DIGEST_FELTS[hash_name] * len(proof.layer_roots)
        + 1  # nonce
        + sum(opening_felts(o, hash_name) for o in openings)
    )


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    """Fastest of `repeat` runs, and the last result."""
    best, out = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_one(hash_name: str, log_size: int, repeat: int, seed: int = 0) -> dict:
    """Commit 2^log_size random M31 values; open and verify one claim at a random point."""
    params: PcsParams = PARAMS[hash_name]
    channel = CHANNELS[hash_name]
    rng = np.random.default_rng(seed)
    values = random_array(rng, 1 << log_size)
    commit_s, (commitment, data) = best_of(repeat, lambda: commit(values, params))
    point = tuple(QM31Array.random(rng, log_size).to_list())
    claims = [Claim(point, evaluate(values, point))]
    open_s, proof = best_of(repeat, lambda: open_batch([(data, claims)], channel()))
    verify_s, _ = best_of(
        repeat, lambda: verify_batch([(commitment, claims)], proof, params, channel())
    )
    return {
        "hash": hash_name,
        "log_size": log_size,
        "commit_s": round(commit_s, 3),
        "open_s": round(open_s, 3),
        "verify_s": round(verify_s, 3),
        "proof_felts": proof_felts(proof, hash_name),
        "security_bits": round(params.security_bits(log_size), 1),
    }


def run_pcs_bench(
    log_sizes: Sequence[int] = (16, 20, 22),
    hashes: Sequence[str] = ("blake2s", "poseidon"),
    repeat: int = 3,
) -> list[dict]:
    return [bench_one(h, n, repeat) for n in log_sizes for h in hashes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log-size", type=int, action="append", help="repeatable")
    parser.add_argument("--hash", choices=sorted(PARAMS), action="append", help="repeatable")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="also write the rows as JSON")
    args = parser.parse_args()
    rows = run_pcs_bench(
        args.log_size or (16, 20, 22), args.hash or ("blake2s", "poseidon"), args.repeat
    )
    print("| values | hash | commit | open | verify | opening felts | bits |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| 2^{r['log_size']} | {r['hash']} | {r['commit_s']:.3f} s | {r['open_s']:.2f} s "
            f"| {1000 * r['verify_s']:.0f} ms | {r['proof_felts']:,} | {r['security_bits']} |"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
