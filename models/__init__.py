"""Real models Cairn runs: loaded from installed packages, with a float reference forward pass
and the integer forward pass the proofs follow (docs/models/)."""
