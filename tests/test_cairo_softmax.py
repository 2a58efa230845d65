"""The Cairo mirror of the softmax pieces (verifier_cairo/src/softmax/, pcs/stack.cairo): its
generated tests are current, and the two places where it decides in integers what Python
decides with floats agree with Python exactly — ε's ⌈2^θ·(e^(2^-12) − 1)⌉ (the table
`EXP_SLACK`) and the 96-bit soundness rule (`softmax/soundness.cairo`)."""

import math
import re
from fractions import Fraction

from cairn.prover.fields.m31 import P
from cairn.prover.layers.mha.model import Dims
from cairn.prover.pcs.params import FIELD_BITS, TARGET_BITS
from cairn.prover.softmax import soundness
from cairn.prover.softmax.params import DELTA, EXP_RES_BITS, SoftmaxParams
from cairn.prover.softmax.relations import STACK_VARS
from cairn.prover.soundness import bits
from tests import cairo_softmax_vectors

PARAMS_CAIRO = cairo_softmax_vectors.OUTPUT.parents[1] / "softmax" / "params.cairo"
SOUNDNESS_REFUSED = 1 << 28  # soundness.cairo's REFUSED_COUNT


def test_cairo_vectors_are_current():
    """verifier_cairo/src/tests/softmax_vectors.cairo is what the generator renders now."""
    assert cairo_softmax_vectors.OUTPUT.read_text() == cairo_softmax_vectors.render(), (
        "run `python -m tests.cairo_softmax_vectors`"
    )


def _exp_slack_table() -> list[int]:
    source = PARAMS_CAIRO.read_text()
    body = re.search(r"const EXP_SLACK: \[u32; 31\] = \[(.*?)\];", source, re.S)
    assert body is not None
    return [int(x) for x in body.group(1).replace("\n", " ").split(",") if x.strip()]


def test_exp_slack_is_the_exact_ceiling_for_every_theta():
    """2^θ·(e^x − 1), x = 2^-12, between the series' partial sum L and L plus a bound on its
    tail (Σ_{k>K} x^k/k! ≤ 2·x^(K+1)/(K+1)! for x ≤ 1): both have the same ceiling, which is
    Python's float `math.ceil(2.0**θ * DELTA)` and the Cairo table's entry, for every θ the
    wrap rule allows (ŝ·2^θ ≤ 2^30)."""
    x = Fraction(1, 1 << EXP_RES_BITS)
    k_max = 8
    partial = sum(x**k / math.factorial(k) for k in range(1, k_max + 1))
    tail = 2 * x ** (k_max + 1) / math.factorial(k_max + 1)
    table = _exp_slack_table()
    assert len(table) == 31
    for theta in range(31):
        low, high = partial * (1 << theta), (partial + tail) * (1 << theta)
        assert math.ceil(low) == math.ceil(high), theta
        assert math.ceil(low) == math.ceil(2.0**theta * DELTA) == table[theta], theta


def test_the_96_bit_rule_is_an_integer_threshold():
    """Terms are counts N over p^4: −log2(N/p^4) < 96 exactly when N ≥ 2^28, since
    p^4/2^96 lies in (2^28 − 1, 2^28); Python's float verdict agrees on both sides."""
    assert P**4 // (1 << 96) == SOUNDNESS_REFUSED - 1
    field = 2.0**-FIELD_BITS
    assert bits({"n": (SOUNDNESS_REFUSED - 1) * field}) >= TARGET_BITS
    assert bits({"n": SOUNDNESS_REFUSED * field}) < TARGET_BITS


def test_layouts_that_fit_are_far_from_the_96_bit_threshold():
    """Whenever the witness fits the stacks (n = H + 2S ≤ 22) the terms total below 2^25, so
    the layout is the rule that refuses (soundness.cairo's comment)."""
    for s_vars in range(12):
        for h_vars in range(STACK_VARS - 2 * s_vars + 1):
            for m in (1, 1 << 16):
                s, h = 1 << s_vars, 1 << h_vars
                dims = Dims(s, h, m, False)
                params = SoftmaxParams.derive(s, 1, 1e-3)
                counts = [
                    round(t / 2.0**-FIELD_BITS)
                    for t in soundness.error_terms(dims, params).values()
                ]
                assert sum(counts) < 1 << 25
                assert soundness.security_problem(dims, params) is None
