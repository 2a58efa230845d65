"""Batched LogUp-GKR benchmark: prove and verify time of a batch (docs/lookups.md).

    .venv/bin/python benchmarks/lookups.py          # the MiniLM softmax batch, both channels
    .venv/bin/python benchmarks/lookups.py --sizes 10s 8t --repeat 1

A size is log2 of the leaves and `s` (singles, numerators 1) or `t` (a table: random
multiplicities below 2^10); denominators are random QM31. Best of --repeat runs.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.fields.qm31 import QM31Array
from cairn.prover.lookups.prover import Fractions, prove_logup
from cairn.prover.lookups.verifier import verify_logup

CHANNELS = {"poseidon": Poseidon252Channel, "blake2s": Blake2sChannel}
MINILM_SOFTMAX = ["18s", "18s", "12s", "17t", "14t", "9t"]  # EXP, LIMB, NORM: witness, table


def instances(sizes: list[str], seed: int = 0) -> list[Fractions]:
    rng = np.random.default_rng(seed)
    out = []
    for size in sizes:
        n, kind = int(size[:-1]), size[-1]
        numerators = None if kind == "s" else QM31Array.from_base(rng.integers(0, 1 << 10, 1 << n))
        out.append(Fractions(numerators, QM31Array.random(rng, 1 << n)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=MINILM_SOFTMAX)
    parser.add_argument("--channel", choices=sorted(CHANNELS), action="append")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    batch = instances(args.sizes)
    n_vars = [f.n_vars for f in batch]
    for name in args.channel or sorted(CHANNELS):
        channel = CHANNELS[name]
        prove_s, verify_s = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            proof, leaves = prove_logup(batch, channel())
            mid = time.perf_counter()
            if verify_logup(n_vars, proof, channel()) != leaves:
                raise SystemExit("the verifier's leaf claims differ from the prover's")
            prove_s.append(mid - start)
            verify_s.append(time.perf_counter() - mid)
        qm31s = 2 * len(proof.roots) + sum(
            3 * len(layer.sumcheck.rounds) + 4 * len(layer.masks) for layer in proof.layers
        )
        print(
            f"{name:8} {' '.join(args.sizes)}: prove {min(prove_s):.2f} s, "
            f"verify {1e3 * min(verify_s):.0f} ms, {len(proof.layers)} layers, {qm31s} QM31"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
