"""M31 and its extensions CM31 and QM31, as Python-int scalars and as numpy arrays.

The formulas are written once, over "coordinates" that are either Python ints or int64
arrays, so the scalar and the vectorized code paths cannot drift apart.
"""

from cairn.prover.fields.cm31 import CM31
from cairn.prover.fields.m31 import M31, P
from cairn.prover.fields.qm31 import QM31, QM31Array

__all__ = ["CM31", "M31", "QM31", "P", "QM31Array"]
