"""Small helpers the closed-form MLE tests share: padded sizes and random QM31 points."""

from cairn.prover.fields.qm31 import QM31


def np2(n):
    return 1 << (n - 1).bit_length()


def n_vars(n):
    return (n - 1).bit_length()


def random_point(rng, n):
    return [QM31(*map(int, rng.integers(0, 2**31 - 1, 4))) for _ in range(n)]
