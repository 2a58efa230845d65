"""Softmax over integers: public parameters, the fixed exp table, the honest forward pass
with its lookup multiplicities, and the closed-form MLEs the softmax verifier evaluates.

The quantised softmax: u = Z_i − c·S_ij ≥ 0 (units of 2^-F), split into limbs
u = lo + 2^(F−12)·e + 2^(F+4)·hi, and y = [hi = 0]·T[e] with T[e] = round(2^θ·exp(−e/4096));
every row sums to 2^θ within ±ε.
"""
