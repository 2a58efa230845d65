"""Attention with softmax proven (kind attn): exact outputs, honest proofs on odd shapes, every
field tampered, and the security claims of docs/layers/attn.md ("What a cheating prover
cannot do") — each by a prover that commits a dishonest witness and is caught by a named check.
"""

import dataclasses

import numpy as np
import pytest

from cairn import examples
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31, QM31Array
from cairn.prover.layers.attn import model as attn
from cairn.prover.layers.mha.model import Dims, attend_heads, head_scores, unpad
from cairn.prover.layers.registry import LAYERS
from cairn.prover.lookups.prover import Fractions
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, WITNESS_PCS
from cairn.prover.pcs.prover import commit
from cairn.prover.softmax import model as softmax_model
from cairn.prover.softmax import prover as softmax_prover
from cairn.prover.softmax import relations, tables
from cairn.prover.softmax.params import EXP_BITS, LIMB_BITS
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import (
    check_of,
    rejections,
    sampled_layer_mutations,
    witness_tamperings,
)

SPEC = LAYERS["attn"]
# (s, h, m, causal): s = h = m = 1, non-powers of two, causal and not.
SHAPES = [(1, 1, 1, True), (1, 1, 1, False), (3, 2, 5, True), (5, 3, 3, False)]


@pytest.fixture(scope="module")
def proofs():
    return {
        shape: prove_walk(SPEC, examples.attn_example(*shape, None, seed=sum(shape)))
        for shape in SHAPES
    }


def _float_softmax(logits, valid):
    x = np.where(valid, logits, -np.inf)
    x = x - x.max(axis=-1, keepdims=True)
    e = np.where(valid, np.exp(x), 0.0)
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify_and_the_output_is_attention(proofs, shape):
    s, h, m, causal = shape
    proof = proofs[shape]
    verify_walk(SPEC, proof)
    st = proof.statement
    assert set(st.inputs) == {"q", "k", "v"} and set(st.outputs) == {"o"}  # no S_M, no A
    params = attn.params_of(st)
    q, k, v = (st.inputs[n] for n in "qkv")
    a, o = attn.attention(q, k, v, Dims(s, h, m, causal), params)
    # Independent per-head reference: O_i = A_i·V_i, A within the proven L1 bound of
    # softmax(c/2^F · Q_i·K_iᵀ) under the mask.
    ref = np.zeros_like(o)
    valid = np.tri(s, dtype=bool) if causal else np.ones((s, s), dtype=bool)
    for i in range(h):
        cols = slice(i * m, (i + 1) * m)
        ref[:s, cols] = a[i] @ v[:, cols]
        logits = (params.c / 2**params.f) * (q[:, cols] @ k[:, cols].T)
        l1 = np.abs(a[i] / 2**params.theta - _float_softmax(logits, valid)).sum(axis=-1)
        assert l1.max() <= params.l1_bound(s)
    assert np.array_equal(o, ref)


def test_json_round_trip_verifies(proofs, tmp_path):
    proof = proofs[SHAPES[2]]
    path = tmp_path / "attn.json"
    proof_file.save(proof, path)
    back = proof_file.load(path)
    assert back.statement.witness == proof.statement.witness
    verify_walk(SPEC, back)


def test_every_field_tampered_is_rejected_by_a_named_check(proofs):
    proof = proofs[SHAPES[2]]
    checks = rejections(SPEC, proof, sampled_layer_mutations)
    for step in ("unpad", "attend", "heads", "pad"):
        assert f"mha.{step}" in checks
    assert {"gkr.layer", "gkr.mask_count", "softmax.columns", "softmax.mask"} <= set(checks)
    assert any(c.startswith(("pcs.", "merkle.")) for c in checks)
    assert "walk.witness_opening" in checks  # the walk's opening removed


def test_the_witness_commitment_is_checked(proofs):
    for tampered in witness_tamperings(proofs[SHAPES[2]], "softmax"):
        assert check_of(SPEC, tampered) == "softmax.commitment"


def test_statement_parameters_and_ranges_are_checked(proofs):
    proof = proofs[SHAPES[3]]
    st = proof.statement
    for index, value in ((7, st.dims[7] + 1), (4, 11), (5, 0)):  # ε, F, c
        dims = (*st.dims[:index], value, *st.dims[index + 1 :])
        bad = dataclasses.replace(proof, statement=dataclasses.replace(st, dims=dims))
        with pytest.raises(VerificationError) as e:
            verify_walk(SPEC, bad)
        assert e.value.check == "softmax.params"
    q = st.inputs["q"].copy()
    q[0, 0] = 128  # beyond int8: the softmax parameters' score bound no longer holds
    bad = dataclasses.replace(st, inputs={**st.inputs, "q": q})
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, dataclasses.replace(proof, statement=bad))
    assert e.value.check == "statement.range"
    with pytest.raises(ValueError, match="beyond"):
        attn.make_statement(q, st.inputs["k"], st.inputs["v"], 3, False, 1e-4)


def test_long_contexts_beyond_the_bit_budget_are_refused():
    with pytest.raises(ValueError, match="2\\^30"):
        attn.make_statement(*(np.ones((4097, 1), dtype=np.int64),) * 3, 1, False, 1e-4)


# -- cheating provers --------------------------------------------------------------------------


def _lax_multiplicities(trace, params):
    """What a cheating prover can at best commit: counts of the in-table values only."""
    slacks = np.concatenate([n.ravel() for n in softmax_model.norm_slacks(trace, params)])
    sizes = (2 << EXP_BITS, 1 << LIMB_BITS, 1 << params.k_n)
    keys = (
        (trace.live << EXP_BITS | trace.e).ravel(),
        (trace.hi << params.lo_bits | trace.lo).ravel(),
        slacks,
    )
    return tuple(
        np.bincount(k[(k >= 0) & (k < n)], minlength=n).astype(np.int64)
        for k, n in zip(keys, sizes, strict=True)
    )


CHEAT_SHAPE = (3, 3, 4, True)  # ĥ = 4: one padded head; ŝ = 4: one padded row


def _setup(shape=CHEAT_SHAPE, seed=3):
    s, h, m, causal = shape
    st = examples.attn_example(s, h, m, causal, None, seed)
    dims, params = Dims(s, h, m, causal), attn.params_of(st)
    scores = head_scores(st.inputs["q"], st.inputs["k"], dims)
    return st, dims, params, scores, softmax_model.valid_entries(h, s, causal)


def _cheat(monkeypatch, edit):
    """Prove with the trace `edit` returns from the honest one (a copy), O recomputed from its
    Y so that only the softmax relations are false; returns the check that rejects it."""
    proof = cheat_proof(monkeypatch, edit)
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, proof)
    return e.value.check


def cheat_proof(monkeypatch, edit):
    """The proof `_cheat` checks (tests/cairo_attn_vectors.py gives its softmax part to Cairo)."""
    st, dims, params, scores, valid = _setup()
    honest = softmax_model.forward(scores, valid, params)
    fields = ("lo", "e", "hi", "live", "y", "z")
    trace = edit(dataclasses.replace(honest, **{f: getattr(honest, f).copy() for f in fields}))
    monkeypatch.setattr(softmax_prover, "forward", lambda *_: trace)
    monkeypatch.setattr(softmax_prover, "multiplicities", _lax_multiplicities)
    a = trace.y[: dims.h, : dims.s, : dims.s]
    o = unpad(attend_heads(a, st.inputs["v"], dims), dims)[: dims.s, : dims.h * dims.m]
    st = dataclasses.replace(st, outputs={"o": o})
    return prove_walk(SPEC, st)


def _with_shift(row, shift):
    """An edit: one row recomputed with another shift (every limb and lookup valid)."""
    _, _, params, scores, valid = _setup()

    def edit(t):
        z = t.z.copy()
        z[row] = shift
        return softmax_model.trace_with_shifts(scores, valid, params, z)

    return edit


def _set_u(t, idx, u, params):
    """Entry idx gets the limbs of u and live, y as the tables say (valid lookups)."""
    lo_bits = params.lo_bits
    t.lo[idx] = u & ((1 << lo_bits) - 1)
    t.e[idx] = (u >> lo_bits) & ((1 << EXP_BITS) - 1)
    t.hi[idx] = u >> (lo_bits + EXP_BITS)
    t.live[idx] = int(t.hi[idx] == 0)
    t.y[idx] = t.live[idx] * tables.exp_table(params.theta)[t.e[idx]]
    return t


def _tiny_weight_u(params):
    """A live u whose table value is 1: a row sum moves by 1, within the tolerance."""
    e = int(np.flatnonzero(tables.exp_table(params.theta) == 1)[0])
    return e << params.lo_bits


def moved_entry(t):
    """One entry moved to its neighbour, the row sum kept."""
    t.y[0, 2, 0] += 1
    t.y[0, 2, 1] -= 1
    return t


def wrong_table_value(t):
    t.y[1, 2, 1] += 1  # y ≠ T[e]
    return t


def test_false_softmax_one_entry_moved_with_the_row_sum_kept(monkeypatch):
    assert _cheat(monkeypatch, moved_entry) == "logup.balance"


def test_a_wrong_table_value(monkeypatch):
    assert _cheat(monkeypatch, wrong_table_value) == "logup.balance"


def test_an_all_zero_row(monkeypatch):
    """A shift so large that every entry of the row leaves the table: y = 0 everywhere."""
    _, _, params, scores, valid = _setup()
    honest = softmax_model.forward(scores, valid, params)
    row = (0, 2)
    assert _cheat(monkeypatch, _with_shift(row, honest.z[row] + (1 << 28))) == "logup.balance"


def _row_sum(z, row, scores, valid, params):
    zs = softmax_model.forward(scores, valid, params).z.copy()
    zs[row] = z
    return int(softmax_model.trace_with_shifts(scores, valid, params, zs).y[row].sum())


@pytest.mark.parametrize("side", [-1, 1])
def test_a_row_just_outside_the_tolerance(monkeypatch, side):
    """The first shift past the admissible interval: |R − 2^θ| > ε by the least amount a
    shift can make, every limb and lookup otherwise valid."""
    _, _, params, scores, valid = _setup()
    row = (1, 2)
    z = int(softmax_model.forward(scores, valid, params).z[row])
    one, eps = 1 << params.theta, params.eps

    def outside(zz):
        return abs(_row_sum(zz, row, scores, valid, params) - one) > eps

    step = 1
    while not outside(z - side * step):  # R falls as z grows: side +1 lowers z
        step *= 2
    lo, hi = step // 2, step  # inside at lo, outside at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if outside(z - side * mid) else (mid, hi)
    assert _cheat(monkeypatch, _with_shift(row, z - side * hi)) == "logup.balance"


def masked_entry_live():
    """Above the diagonal (causal), a live entry of weight 1."""
    _, _, params, _, _ = _setup()
    return lambda t: _set_u(t, (0, 0, 2), _tiny_weight_u(params), params)


def test_a_masked_entry_made_live(monkeypatch):
    """Only the recomposition fails."""
    assert _cheat(monkeypatch, masked_entry_live()) == "softmax.mask"


def test_the_p_minus_2_sentinel(monkeypatch):
    """u = 1 at a masked position (stwo-ml's sentinel gives it full weight): rejected."""
    _, _, params, _, _ = _setup()
    check = _cheat(monkeypatch, lambda t: _set_u(t, (1, 0, 1), 1, params))
    assert check in {"logup.balance", "softmax.mask"}


@pytest.mark.parametrize("idx", [(3, 0, 0), (0, 3, 0)])  # a padded head, a padded row
def test_non_zero_padded_heads_and_rows(monkeypatch, idx):
    _, _, params, _, _ = _setup()
    check = _cheat(monkeypatch, lambda t: _set_u(t, idx, _tiny_weight_u(params), params))
    assert check in {"logup.balance", "softmax.mask"}


def limbs_out_of_range():
    """The same u with lo ≥ 2^(F−12) and e one smaller."""
    _, _, params, _, _ = _setup()

    def edit(t):
        idx = (0, 2, int(np.argmax(t.e[0, 2, :3])))
        t.lo[idx] += 1 << params.lo_bits
        t.e[idx] -= 1
        t.y[idx] = t.live[idx] * tables.exp_table(params.theta)[t.e[idx]]
        return t

    return edit


def test_limbs_out_of_range(monkeypatch):
    assert _cheat(monkeypatch, limbs_out_of_range()) == "logup.balance"


def lookups_counted_twice(monkeypatch):
    """A balanced LogUp with a witness numerator of 2: every EXP lookup counted twice and the
    table's multiplicities doubled (the committed ones are not): a proof only
    `logup.numerator` refuses (tests/cairo_attn_vectors.py gives it to Cairo)."""
    real = softmax_prover.prove_logup

    def doubled(instances, channel):
        lookups, limb, norm, table, *rest = instances
        twos = QM31Array.broadcast(QM31.from_int(2), lookups.denominators.shape)
        twice = Fractions(twos, lookups.denominators)
        more = Fractions(table.numerators + table.numerators, table.denominators)
        return real([twice, limb, norm, more, *rest], channel)

    monkeypatch.setattr(softmax_prover, "prove_logup", doubled)
    return prove_walk(SPEC, _setup()[0])


def substituted_limb_entry(monkeypatch):
    """LIMB's table with its last entry, which no lookup reads (multiplicity 0: the LogUp
    stays balanced), replaced: only the verifier's own table keys tell (`softmax.columns`)."""
    real = softmax_prover.table_denominators

    def substituted(rel, params):
        exp_t, limb_t, norm_t = real(rel, params)
        other = QM31Array.from_list([*limb_t.to_list()[:-1], limb_t.item(0) + QM31.one()])
        return exp_t, other, norm_t

    monkeypatch.setattr(softmax_prover, "table_denominators", substituted)
    return prove_walk(SPEC, _setup()[0])


@pytest.mark.parametrize(
    ("cheat", "check"),
    [(lookups_counted_twice, "logup.numerator"), (substituted_limb_entry, "softmax.columns")],
)
def test_a_balanced_logup_over_false_leaves(monkeypatch, cheat, check):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, cheat(monkeypatch))
    assert e.value.check == check


def test_a_substituted_table_root(monkeypatch):
    fake = tables.exp_table(19).copy()
    fake[-1] += 1  # an entry no honest lookup reads: only the root tells the tables apart
    fake_data = commit(fake, WITNESS_PCS[DEFAULT_WITNESS_HASH])[1]
    monkeypatch.setattr(tables, "exp_table_commitment", lambda *_: fake_data)
    monkeypatch.setattr(softmax_prover, "exp_table", lambda _: fake)
    monkeypatch.setattr(relations, "exp_table", lambda _: fake)  # the prover's table keys
    proof = prove_walk(SPEC, _setup()[0])
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, proof)
    assert e.value.check.startswith(("pcs.", "merkle."))


def test_a_shift_adapted_after_the_challenges(monkeypatch):
    """Z is in the committed stack: a prover that uses another Z once the points are drawn
    (in the recomposition sum-check) is caught there, or else by the opening."""
    real = softmax_prover.prove_sumcheck

    def adapted(mles, terms, channel):
        if len(mles) == 4:  # the recomposition: eq, w, Z (row-repeated), QK̂
            mles = [*mles[:2], mles[2] + mles[2], mles[3]]
        return real(mles, terms, channel)

    monkeypatch.setattr(softmax_prover, "prove_sumcheck", adapted)
    proof = prove_walk(SPEC, _setup()[0])
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, proof)
    assert e.value.check == "softmax.mask"
