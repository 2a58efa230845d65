"""One generic sum-check for sums of products of up to four MLEs (degree <= 4).

Round polynomials travel as coefficients without the linear one, which the verifier rebuilds
from the running claim: g(0) + g(1) = claim gives c1 = claim - 2 c0 - c2 - ... - cd.
"""
