"""LayerNorm with exact integer statistics (kind layernorm): outputs against an independent
reference and models/minilm/quantized.py's layer_norm, the row bound under hypothesis, honest
proofs on odd shapes, every field tampered, and the security claims of
docs/layers/layernorm.md ("What a cheating prover cannot do")."""

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn import examples
from cairn.models.minilm import quantized
from cairn.models.minilm.quantized import QuantModel, Trace, Widths
from cairn.models.minilm.source import Config
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.layernorm import prover as layernorm_prover
from cairn.prover.layers.layernorm.params import LayerNormParams, params_of
from cairn.prover.layers.layernorm.verifier import verify_layernorm
from cairn.prover.layers.registry import LAYERS
from cairn.prover.layers.requant.model import trace as requant_trace
from cairn.prover.mle import pad_tensor
from cairn.prover.ranges import mod_p_only
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.statement import absorb_statement, draw_output_claims
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import (
    check_of,
    rejections,
    sampled_layer_mutations,
    witness_tamperings,
)

SPEC = LAYERS["layernorm"]
# (s, d, E): all-ones, non-powers of two, one row, one column, ε > 0.
SHAPES = [(1, 1, 0), (3, 5, 2), (5, 1, 0), (1, 7, 1), (4, 6, 0)]


def statement(s, d, eps, seed):
    """examples.layernorm_example's rows, with ε = E."""
    ex = examples.layernorm_example(s, d, seed)
    h, gamma, beta = ex.inputs["h"], ex.weights["gamma"], ex.weights["beta"]
    return layernorm.make_statement(h, gamma, beta, examples.layernorm_params(h, gamma, eps))


@pytest.fixture(scope="module")
def proofs():
    return {shape: prove_walk(SPEC, statement(*shape, seed=sum(shape))) for shape in SHAPES}


def _requant(x, k, b):
    """R(x; k, b) from the definition: ⌊x/2^k + ½⌋ in exact rationals, clamped."""
    c = 2 ** (b - 1) - 1
    return max(-c, min(c, math.floor(Fraction(x, 2**k) + Fraction(1, 2))))


def _reference(h, gamma, beta, p):
    """docs/layers/layernorm.md's integer semantics, row by row in Python integers."""
    out = []
    for row in h.tolist():
        d, s1, s2 = len(row), sum(row), sum(v * v for v in row)
        mean = math.floor(Fraction(s1, d) + Fraction(1, 2))
        var = d * s2 - s1 * s1 + d * d * p.eps
        r = math.isqrt(math.floor(Fraction(d * d * 2 ** (2 * p.shift), max(1, var))))
        n = [_requant((v - mean) * r, p.norm_shift, p.norm_bits) for v in row]
        z = [_requant(a * int(g), p.scale_shift, p.scale_bits) for a, g in zip(n, gamma)]
        out.append([a + int(b) for a, b in zip(z, beta)])
    return np.array(out, dtype=np.int64)


def _quantized(h, gamma, beta, p, f_h=10, f_gamma=11):
    """quantized.py's layer_norm with a model whose scales give the same parameters."""
    d = h.shape[1]
    f_y = p.shift - p.norm_shift
    config = Config(1, d, 1, 4 * d, 10, 16, p.eps * 2.0 ** (-2 * f_h))
    scales = {"n": f_y + f_gamma - p.scale_shift, "n.y": f_y, "n.gamma": f_gamma}
    bits = {"n": p.scale_bits, "n.y": p.norm_bits}
    m = QuantModel(
        config, Widths(norm_shift=p.shift), {"n.gamma": gamma, "n.beta": beta}, scales, bits
    )
    run = quantized.Pass(m, Trace())
    assert run.layer_norm_params("n", h, f_h) == p
    return run.layer_norm("n", h, f_h)


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify_and_the_output_is_the_reference(proofs, shape):
    proof = proofs[shape]
    verify_walk(SPEC, proof)
    stmt = proof.statement
    h, gamma, beta = stmt.inputs["h"], stmt.weights["gamma"], stmt.weights["beta"]
    p = params_of(stmt)
    assert p.eps == shape[2]
    assert np.array_equal(stmt.outputs["y"], _reference(h, gamma, beta, p))
    assert np.array_equal(stmt.outputs["y"], _quantized(h, gamma, beta, p))
    s1, s2 = stmt.outputs["s1"], stmt.outputs["s2"]
    assert np.array_equal(s1, h.sum(axis=1))
    squares = [layernorm.square_sum(row, p.limb_bits) for row in s2.tolist()]
    assert squares == [sum(v * v for v in row) for row in h.tolist()]


def test_the_minilm_size_matches_quantized():
    """s = 128, d = 384 with the example's residual-like rows and outliers (no proof)."""
    ex = examples.layernorm_example(128, 384, 5)
    h, gamma, beta = ex.inputs["h"], ex.weights["gamma"], ex.weights["beta"]
    p = params_of(ex)
    assert (p.shift, p.norm_shift, p.limb_bits) == (24, 14, 9)
    assert np.array_equal(ex.outputs["y"], _quantized(h, gamma, beta, p))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-(2**17), 2**17 - 1), min_size=1, max_size=40),
    st.integers(0, 18),
    st.integers(-(2**16), 2**16),
    st.integers(0, 3),
)
def test_the_centred_product_never_exceeds_the_static_bound(values, shift, offset, eps):
    """|(h − μ)·r| ≤ ⌊2^(R+1)·√(d−1)⌋ for any row: spreads from 2^17 down to constant rows."""
    row = [offset + (v >> shift) for v in values]
    d, s1 = len(row), sum(row)
    p = LayerNormParams(d, 10, 24, eps, 14, 16, 11, 11, 16)
    r = layernorm.norm_factor(s1, sum(v * v for v in row), d, p.shift, eps)
    mean = layernorm.row_mean(s1, d)
    assert max(abs(v - mean) * r for v in row) <= p.norm_bound


def test_json_round_trip_verifies(proofs, tmp_path):
    path = tmp_path / "layernorm.json"
    proof_file.save(proofs[SHAPES[1]], path)
    verify_walk(SPEC, proof_file.load(path))


def test_every_field_tampered_is_rejected_by_a_named_check(proofs):
    checks = rejections(SPEC, proofs[SHAPES[1]], sampled_layer_mutations)
    named = {
        "gkr.layer",
        "logup.numerator",
        "requant.columns",
        "layernorm.columns",
        "layernorm.scale",
        "layernorm.normalise",
        "layernorm.statistics",
    }
    assert named <= set(checks), named - set(checks)
    assert any(c.startswith(("pcs.", "merkle.")) for c in checks)
    assert "walk.witness_opening" in checks  # the walk's opening removed


def test_the_witness_commitment_is_checked(proofs):
    for tampered in witness_tamperings(proofs[SHAPES[1]], "layernorm"):
        assert check_of(SPEC, tampered) == "layernorm.commitment"


def _with_dims(proof, **changes):
    stmt = proof.statement
    dims = list(stmt.dims)
    for name, value in changes.items():
        dims[layernorm.DIM_NAMES.index(name)] = value
    return dataclasses.replace(proof, statement=dataclasses.replace(stmt, dims=tuple(dims)))


DIMS_CASES = [
    ({"w": 0}, "statement.shape"),
    ({"w": 14}, "layernorm.params"),  # d·4^w > 2^30: limb sums could wrap
    ({"w": 40}, "layernorm.params"),  # 4^w beyond any integer type a verifier might use
    ({"w": (1 << 32) - 1}, "layernorm.params"),  # d << 2w would take a verifier 1 GiB to build
    ({"R": 31}, "layernorm.params"),
    ({"R": 28}, "layernorm.params"),  # 2^(R+1)·√(d−1) reaches 2^30
    ({"b_n": 20}, "layernorm.params"),  # b + k > 30
    ({"b_n": 0}, "layernorm.params"),  # no clamp for the scale gadget's bound to read
    ({"k_z": 0}, "layernorm.params"),
    ({"b_z": 0}, "layernorm.params"),
    ({"g": 31}, "layernorm.params"),
    ({"w": 5}, "statement.range"),  # h beyond [−2^9, 2^9)
    ({"g": 3}, "statement.range"),  # γ beyond ±7
    ({"s": 2}, "statement.shape"),
]


@pytest.mark.parametrize(("changes", "check"), DIMS_CASES)
def test_statement_parameters_and_ranges_are_checked(proofs, changes, check):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, _with_dims(proofs[SHAPES[1]], **changes))
    assert e.value.check == check


def wrapping_beta(proof):
    """The proof with β[0] = 2^30 − 1: y = z + β could wrap."""
    stmt = proof.statement
    beta = stmt.weights["beta"].copy()
    beta[0] = (1 << 30) - 1
    return dataclasses.replace(
        proof, statement=dataclasses.replace(stmt, weights={**stmt.weights, "beta": beta})
    )


def test_a_beta_that_could_wrap_the_output_is_refused(proofs):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, wrapping_beta(proofs[SHAPES[1]]))
    assert e.value.check == "statement.range" and "z + β" in str(e.value)


def test_wrong_inputs_are_refused_by_the_prover():
    p = LayerNormParams(4, 3, 24, 0, 11, 16, 11, 11, 16)
    with pytest.raises(ValueError, match="outside"):
        layernorm.make_statement(np.full((2, 4), 40), np.ones(4), np.zeros(4), p)
    with pytest.raises(ValueError, match="takes h"):
        layernorm.make_statement(np.zeros((2, 3)), np.ones(4), np.zeros(4), p)
    with pytest.raises(ValueError, match="no LayerNorm parameters"):  # γ beyond 30 bits
        examples.layernorm_params(np.zeros((1, 1), dtype=np.int64), np.array([1 << 31]))


def test_the_check_skips_hidden_and_committed_tensors(proofs):
    """In a model walk h may be hidden with no bound and γ, β committed: the check still runs,
    and the relations reading γ and β are reported mod p only."""
    stmt = proofs[SHAPES[1]].statement
    hidden = {"h": np.full_like(stmt.inputs["h"], 1 << 29)}
    for unbounded in ({"h", "gamma", "beta"}, {"h"}):
        weights = {n: np.full_like(t, 1 << 29) for n, t in stmt.weights.items()}
        if unbounded == {"h"}:
            weights = stmt.weights
        SPEC.check(
            dataclasses.replace(
                stmt, inputs=hidden, weights=weights, unbounded=frozenset(unbounded)
            )
        )
    assert mod_p_only(SPEC.relations, {"gamma", "beta"}) == [
        "n·γ + 2^(k_z−1) = 2^k_z·z' + rem",
        "y = z + β",
        "‖y_i‖₂ from the row statistics",
    ]
    results = {rel.result for rel in SPEC.relations}
    assert {"y", "s1", "s2"} <= results


def test_the_verifier_reads_only_the_statistics(proofs):
    """verify_layernorm never reads h, y, γ or β: the same claims come out without them."""
    proof = proofs[SHAPES[1]]
    stmt = proof.statement
    channel = Poseidon252Channel()
    absorb_statement(channel, stmt)
    outputs = draw_output_claims(channel, stmt.outputs)
    public = {n: stmt.outputs[n] for n in ("s1", "s2")}
    bare = dataclasses.replace(stmt, inputs={}, outputs=public, weights={})
    claims = verify_layernorm(bare, proof.layer, outputs, channel)
    assert set(claims.inputs) == {"h"} and set(claims.weights) == {"beta", "gamma"}


# -- cheating provers --------------------------------------------------------------------------

CHEAT = (3, 5, 0)


def _cheat(monkeypatch, make, shape=CHEAT, seed=4):
    """Prove with the trace `make(h, gamma, beta, p, mean, r)` builds from the honest row
    factors (a cheater commits it with the best multiplicities it can, which the prover's
    counting of in-table values gives), y published as its y; `stats` may replace the
    published statistics. Returns the check that rejects it."""
    stmt = statement(*shape, seed=seed)
    p = params_of(stmt)
    h, gamma, beta = stmt.inputs["h"], stmt.weights["gamma"], stmt.weights["beta"]
    s1, s2 = stmt.outputs["s1"].copy(), stmt.outputs["s2"].copy()
    trace, (s1, s2) = make(h, gamma, beta, p, s1, s2)
    monkeypatch.setattr(layernorm_prover, "forward", lambda *_: trace)
    stmt = dataclasses.replace(stmt, outputs={"s1": s1, "s2": s2, "y": trace.y})
    proof = prove_walk(SPEC, stmt)
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, proof)
    return e.value.check


def _consistent(h, gamma, beta, p, s1, s2):
    """The witness an honest prover would build from (possibly false) statistics."""
    return layernorm.normalise(h, gamma, beta, p, *layernorm.row_factors(s1, s2, p)), (s1, s2)


def test_a_false_row_sum(monkeypatch):
    """S1 + d in one row: μ one larger, and every later step consistent with it."""

    def make(h, gamma, beta, p, s1, s2):
        s1[0] += p.d
        return _consistent(h, gamma, beta, p, s1, s2)

    assert _cheat(monkeypatch, make) == "layernorm.statistics"


@pytest.mark.parametrize("limb", [0, 2])
def test_a_false_square_sum(monkeypatch, limb):
    """Σlo² or Σhi² changed in one row (a smaller or larger variance), the rest consistent."""

    def make(h, gamma, beta, p, s1, s2):
        s2[1, limb] += 1 if limb else -(1 << 12)
        return _consistent(h, gamma, beta, p, s1, s2)

    assert _cheat(monkeypatch, make) == "layernorm.statistics"


def test_a_mean_off_by_one(monkeypatch):
    """The rows centred on μ + 1 with true statistics: the claim on h it leaves is false, which
    the walk's settlement of h catches (its merge, here)."""

    def make(h, gamma, beta, p, s1, s2):
        mean, r = layernorm.row_factors(s1, s2, p)
        return layernorm.normalise(h, gamma, beta, p, mean + 1, r), (s1, s2)

    assert _cheat(monkeypatch, make) in ("sameply.final_evaluation", "walk.input_claim")


def test_a_factor_off_by_one(monkeypatch):
    def make(h, gamma, beta, p, s1, s2):
        mean, r = layernorm.row_factors(s1, s2, p)
        r[0] += 1
        return layernorm.normalise(h, gamma, beta, p, mean, r), (s1, s2)

    assert _cheat(monkeypatch, make) == "layernorm.factor"


def _edit(t, gadget, **columns):
    return dataclasses.replace(t, **{gadget: dataclasses.replace(getattr(t, gadget), **columns)})


@pytest.mark.parametrize("step", [-1, 1])
def test_n_off_by_one_with_the_remainder_adjusted(monkeypatch, step):
    """n' ± 1 and its remainder ∓ 2^k (the same (h − μ)·r), z and y recomputed from it."""

    def make(h, gamma, beta, p, s1, s2):
        t, stats = _consistent(h, gamma, beta, p, s1, s2)
        norm = t.norm
        yq, r1, y = norm.yq.copy(), norm.r1.copy(), norm.y.copy()
        yq[0, 0] += step
        r1[0, 0] -= step << (p.norm.shift - p.norm.lo_bits)
        y[0, 0] = yq[0, 0]
        t = _edit(t, "norm", yq=yq, r1=r1, y=y)
        scale = requant_trace(y * pad_tensor(gamma)[None, :], p.scale)
        s, d = h.shape
        return dataclasses.replace(t, scale=scale, y=scale.y[:s, :d] + beta), stats

    assert _cheat(monkeypatch, make) == "logup.balance"


def test_z_computed_from_another_n(monkeypatch):
    """The committed n honest, z (and y) from n + 1 at one entry: n·γ ≠ the scale input."""

    def make(h, gamma, beta, p, s1, s2):
        t, stats = _consistent(h, gamma, beta, p, s1, s2)
        n = t.norm.y.copy()
        n[0, 0] += 1
        scale = requant_trace(n * pad_tensor(gamma)[None, :], p.scale)
        s, d = h.shape
        return dataclasses.replace(t, scale=scale, y=scale.y[:s, :d] + beta), stats

    assert _cheat(monkeypatch, make) == "layernorm.scale"


def test_limbs_out_of_range(monkeypatch):
    """lo + 2^w and hi − 1 rebuild the same h; lo leaves the LIMB table."""

    def make(h, gamma, beta, p, s1, s2):
        t, stats = _consistent(h, gamma, beta, p, s1, s2)
        lo, hi = t.lo.copy(), t.hi.copy()
        lo[0, 0] += 1 << p.limb_bits
        hi[0, 0] -= 1
        return dataclasses.replace(t, lo=lo, hi=hi), stats

    assert _cheat(monkeypatch, make) == "logup.balance"


def test_a_published_output_that_is_not_z_plus_beta(monkeypatch):
    """y + 1 at one entry with the honest witness: z = y − β no longer opens."""

    def make(h, gamma, beta, p, s1, s2):
        t, stats = _consistent(h, gamma, beta, p, s1, s2)
        y = t.y.copy()
        y[1, 2] += 1
        return dataclasses.replace(t, y=y), stats

    assert _cheat(monkeypatch, make).startswith(("pcs.", "merkle."))
