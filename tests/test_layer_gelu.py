"""GELU proven by one lookup into its (input, output) table (kind gelu): outputs against the
model's table semantics on odd shapes, every field tampered, the statement checks, and cheating
provers (docs/layers/gelu.md, "What a cheating prover cannot do")."""

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from cairn import examples
from cairn.models.minilm import quantized
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import embed
from cairn.prover.layers.gelu import model as gelu
from cairn.prover.layers.gelu import prover as gelu_prover
from cairn.prover.layers.gelu.params import GeluParams, params_of
from cairn.prover.layers.gelu.soundness import security_bits
from cairn.prover.layers.gelu.table import IN_BITS, OUT_BITS, PINNED_ROOTS, SCALE_DROP
from cairn.prover.layers.registry import LAYERS
from cairn.prover.mle import pad_tensor
from cairn.prover.pcs.params import WITNESS_PCS
from cairn.prover.pcs.prover import commit
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.proof_mutations import (
    check_of,
    rejections,
    sampled_layer_mutations,
    witness_tamperings,
)

SPEC = LAYERS["gelu"]
MINILM = (8, 15, 5, 12)  # f_in, b_in, f_out, b_out of MiniLM layer 0's FFN
# (rows, cols, f_in, b_in, f_out, b_out): 1×1, non-powers of two, MiniLM's other two layer
# tables, and both ends of the pinned family (f_out = 0: the top entries clamp).
SHAPES = [
    (1, 1, *MINILM),
    (3, 5, *MINILM),
    (7, 2, 9, 15, 6, 12),
    (2, 9, 10, 15, 7, 12),
    (5, 3, 3, 15, 0, 12),
    (1, 4, 15, 15, 12, 12),
]


def statement(rows, cols, f_in, b_in, f_out, b_out, seed=0):
    """x over all of b_in signed bits, both extremes included."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-(1 << (b_in - 1)), 1 << (b_in - 1), (rows, cols), dtype=np.int64)
    x.flat[0] = -(1 << (b_in - 1))
    x.flat[-1] = (1 << (b_in - 1)) - 1
    return gelu.make_statement(x, f_in, b_in, f_out, b_out)


@pytest.fixture(scope="module")
def proofs():
    return {shape: prove_walk(SPEC, statement(*shape, seed=sum(shape))) for shape in SHAPES}


@pytest.mark.parametrize("shape", SHAPES)
def test_honest_proofs_verify_and_the_output_is_the_models_table(proofs, shape):
    proof = proofs[shape]
    verify_walk(SPEC, proof)
    f_in, b_in, f_out, b_out = shape[2:]
    table = quantized.gelu_table(f_in, b_in, f_out, b_out)  # as quantized.Pass.ffn indexes it
    st = proof.statement
    assert np.array_equal(st.outputs["y"], table[st.inputs["x"] + (1 << (b_in - 1))])


def test_the_example_is_minilms_ffn_activation():
    st = examples.gelu_example(2, 3, seed=1)
    assert params_of(st) == GeluParams(8, quantized.Widths.ffn_in, 5, quantized.Widths.ffn_act)


@pytest.mark.parametrize("params", [MINILM, (0, 1, 0, 1), (9, 12, 9, 16), (18, 20, 0, 16)])
def test_zero_is_a_fixed_point_so_padding_looks_up_a_table_row(params):
    """Padded entries are x = 0 with y = 0 (the walk's zero padding): row 2^(b_in−1) holds 0."""
    assert quantized.gelu_table(*params)[1 << (params[1] - 1)] == 0


def test_the_cairo_verifier_pins_the_same_roots():
    """verifier_cairo/src/layers/gelu/table.cairo lists PINNED_ROOTS' values in f_in order,
    Blake2s's then Poseidon252's."""
    source = (
        Path(__file__).parent.parent / "verifier_cairo/src/layers/gelu/table.cairo"
    ).read_text()
    cairo = [int(h, 16) for h in re.findall(r"0x[0-9A-F]{64}", source)]
    assert cairo == [
        PINNED_ROOTS[f][h] for h in ("blake2s", "poseidon") for f in sorted(PINNED_ROOTS)
    ]
    assert f"const FIRST_F_IN: u32 = {min(PINNED_ROOTS)};" in source


def test_the_pinned_roots_are_the_tables_commitments():
    """Every pinned root recomputed: gelu_table committed with WITNESS_PCS, both hashes."""
    for f_in, roots in PINNED_ROOTS.items():
        key = (f_in, IN_BITS, f_in - SCALE_DROP, OUT_BITS)
        assert GeluParams(*key).problem() is None
        for hash_, root in roots.items():
            values = embed(quantized.gelu_table(*key))
            assert commit(values, WITNESS_PCS[hash_])[0].root == root


def test_json_round_trip_verifies(proofs, tmp_path):
    path = tmp_path / "gelu.json"
    proof_file.save(proofs[SHAPES[1]], path)
    verify_walk(SPEC, proof_file.load(path))


def test_every_field_tampered_is_rejected_by_a_named_check(proofs):
    proof = proofs[SHAPES[1]]
    checks = rejections(SPEC, proof, sampled_layer_mutations)
    assert {"gkr.layer", "gkr.mask_count", "gelu.columns", "logup.numerator"} <= set(checks)
    assert any(c.startswith(("pcs.", "merkle.")) for c in checks)
    assert "walk.witness_opening" in checks  # the walk's opening removed


def test_the_witness_commitment_is_checked(proofs):
    for tampered in witness_tamperings(proofs[SHAPES[1]], "gelu"):
        assert check_of(SPEC, tampered) == "gelu.commitment"


def _with_dims(proof, **changes):
    stmt = proof.statement
    dims = list(stmt.dims)
    for name, value in changes.items():
        dims[gelu.DIM_NAMES.index(name)] = value
    return dataclasses.replace(proof, statement=dataclasses.replace(stmt, dims=tuple(dims)))


DIMS_CASES = [
    ({"b_in": 0}, "gelu.params"),
    ({"b_in": 21}, "gelu.params"),  # a table beyond 2^20 rows
    ({"b_out": 17}, "gelu.params"),
    ({"b_out": 0}, "gelu.params"),
    ({"f_in": 31}, "gelu.params"),
    ({"f_in": 24}, "gelu.params"),  # f_in − f_out > 18
    ({"f_in": 16, "f_out": 13}, "gelu.params"),  # the family, but no pinned root
    ({"f_out": 6}, "gelu.params"),  # a valid table, not a pinned one
    ({"b_out": 11}, "gelu.params"),
    ({"f_out": (1 << 32) - 1}, "gelu.params"),  # f_out + 3 would overflow a u32 in Cairo
    ({"rows": 2}, "statement.shape"),
]


@pytest.mark.parametrize(("changes", "check"), DIMS_CASES)
def test_statement_parameters_are_checked(proofs, changes, check):
    with pytest.raises(VerificationError) as e:
        verify_walk(SPEC, _with_dims(proofs[SHAPES[1]], **changes))
    assert e.value.check == check


def test_the_table_is_the_statements(proofs):
    """A proof for layer 0's table is not one for layer 3's (another pinned table)."""
    assert check_of(SPEC, _with_dims(proofs[SHAPES[1]], f_in=9, f_out=6)) is not None


def test_below_96_bits_is_refused():
    """2^23 entries: y no longer fits one stack the Blake2s PCS proves at 96 bits."""
    p = GeluParams(*MINILM)
    assert security_bits(18, p) > 100  # MiniLM's FFN, 128×1536
    zeros = np.broadcast_to(np.int64(0), (2048, 4096))  # the check reads shapes only
    st = Statement(gelu.KIND, (2048, 4096, *MINILM), {"x": zeros}, {"y": zeros}, {})
    with pytest.raises(VerificationError) as e:
        gelu.check(st)
    assert e.value.check == "gelu.params"


def test_the_check_reads_no_tensor_value(proofs):
    """A hidden or unbounded x or y (a model walk) changes nothing: no relation reads them,
    and y's declared bound is the table's clamp."""
    proof = proofs[SHAPES[1]]
    (relation,) = gelu.RELATIONS
    assert relation.result == "y" and relation.operands == ()
    assert relation.bound({}, proof.statement.dims) == 2**11 - 1
    unbounded = dataclasses.replace(proof.statement, unbounded=frozenset({"x", "y"}))
    verify_walk(SPEC, dataclasses.replace(proof, statement=unbounded))


def test_the_prover_refuses_bad_input():
    with pytest.raises(ValueError, match="b_in = 15"):
        gelu.make_statement(np.array([[1 << 14]]), *MINILM)
    with pytest.raises(ValueError, match="b_in = 15"):
        gelu.make_statement(np.array([[-(1 << 14) - 1]]), *MINILM)
    with pytest.raises(ValueError, match="no pinned GELU table"):
        gelu.make_statement(np.array([[0]]), 2, 4, 2, 8)
    with pytest.raises(ValueError, match="2-D"):
        gelu.make_statement(np.zeros(3, dtype=np.int64), *MINILM)


# -- cheating provers --------------------------------------------------------------------------

CHEAT = (3, 5, 3, 15, 0, 12)  # f_out = 0: small outputs, the top of the table clamped


def cheat_proof(monkeypatch, x, y, table=None):
    """The proof of the statement (x, y) (y's padding 0) with y committed, the multiplicities
    those of x's in-range entries; with `table`, the prover's table side is built from it."""
    rows, cols = x.shape
    st = Statement(gelu.KIND, (rows, cols, *CHEAT[2:]), {"x": x}, {"y": y}, {})
    with monkeypatch.context() as m:
        m.setattr(gelu_prover, "lookup", lambda *_: pad_tensor(y).ravel())
        if table is not None:
            m.setattr(GeluParams, "table", lambda _: table)
        return prove_walk(SPEC, st)


def _cheat(monkeypatch, x, y, table=None):
    return check_of(SPEC, cheat_proof(monkeypatch, x, y, table))


def _honest(seed=4):
    st = statement(*CHEAT, seed=seed)
    return st.inputs["x"].copy(), st.outputs["y"].copy(), params_of(st)


def _unclamped(y, p):
    """The first entry whose output is below the clamp (room for + 1)."""
    return tuple(np.argwhere(y < p.clamp)[0])


def test_a_wrong_table_value(monkeypatch):
    x, y, p = _honest()
    y[_unclamped(y, p)] += 1
    assert _cheat(monkeypatch, x, y) == "logup.balance"


@pytest.mark.parametrize("beyond", [1 << 14, -(1 << 14) - 1, 10**6])
def test_an_input_beyond_b_in_bits(monkeypatch, beyond):
    """x outside [−2^(b_in−1), 2^(b_in−1)) with the output the clamped table would give."""
    x, y, p = _honest()
    x[0, 0] = beyond
    y[0, 0] = p.table()[np.clip(beyond + p.offset, 0, (1 << p.b_in) - 1)]
    assert _cheat(monkeypatch, x, y) == "logup.balance"


def forged_table_proof(monkeypatch):
    """The wrong value of test_a_wrong_table_value, and the table side built from a table with
    that row changed to match: the lookup balances and T̃ is sent to match it."""
    x, y, p = _honest()
    idx = _unclamped(y, p)
    y[idx] += 1
    forged = p.table().copy()
    forged[x[idx] + p.offset] += 1
    return cheat_proof(monkeypatch, x, y, forged)


def test_a_forged_table_row(monkeypatch):
    """The opening of the pinned table at the table point refuses the forged T̃."""
    assert check_of(SPEC, forged_table_proof(monkeypatch)).startswith(("pcs.", "merkle."))


def test_a_published_y_other_than_the_committed_one(monkeypatch):
    """The honest y is committed and proven; the statement publishes y with one entry
    changed: the opening of the committed y at the walk's output point fails."""
    x, y, p = _honest()
    honest = pad_tensor(y).ravel()
    y[_unclamped(y, p)] += 1
    st = Statement(gelu.KIND, (*x.shape, *CHEAT[2:]), {"x": x}, {"y": y}, {})
    with monkeypatch.context() as m:
        m.setattr(gelu_prover, "lookup", lambda *_: honest)
        proof = prove_walk(SPEC, st)
    assert check_of(SPEC, proof).startswith(("pcs.", "merkle."))


def test_a_y_substituted_after_the_commitment(monkeypatch):
    """y committed with one entry changed; the proof runs on the honest y and its stack (the
    lookup balances, every sent value is the honest columns'): the opening fails."""
    st = statement(*CHEAT, seed=4)
    tampered = pad_tensor(st.outputs["y"]).ravel()
    tampered[0] += 1

    def advise(stmt, pcs):
        _, advice = gelu_prover.advise_gelu(stmt, pcs)
        with monkeypatch.context() as m:
            m.setattr(gelu_prover, "lookup", lambda *_: tampered)
            commitments, _ = gelu_prover.advise_gelu(stmt, pcs)
        return commitments, advice

    proof = prove_walk(dataclasses.replace(SPEC, advise=advise), st)
    assert check_of(SPEC, proof).startswith(("pcs.", "merkle."))
