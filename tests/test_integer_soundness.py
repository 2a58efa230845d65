"""Statements hold over the integers, not only mod p (docs/claim-walk.md, "Over the integers").

A wrapped statement — outputs computed mod p from operands whose products leave the signed
range — has an honest mod-p proof; the verifier must refuse it by `statement.range`. The
largest operands inside each bound are still accepted, and relations on committed operands
are reported as holding mod p only.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn import examples
from cairn.prover.errors import VerificationError
from cairn.prover.fields.m31 import HALF, P, lift
from cairn.prover.layers.kvcache import model as kvcache
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.layernorm.params import params_of
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.mha import model as mha
from cairn.prover.layers.posenc import model as posenc
from cairn.prover.layers.qkv import model as qkv
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.params import PARAMS
from cairn.prover.ranges import mod_p_only, product_bound, with_row_norm
from cairn.prover.walk.prover import commit_weights, prove_walk
from cairn.prover.walk.statement import Statement
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.cairo_vectors import sufficient_bound
from tests.test_cli import run


def wrap(x) -> np.ndarray:
    """The value a mod-p computation yields, read back as a signed integer."""
    return lift(np.asarray(x, dtype=np.int64) % P)


def zeros(*shape: int) -> np.ndarray:
    return np.zeros(shape, dtype=np.int64)


def unchecked(kind: str):
    """The layer with its statement checks skipped."""
    return dataclasses.replace(LAYERS[kind], check=lambda st: None)


def forge(st: Statement, monkeypatch, weight_data=None):
    """A prover proving the mod-p instance: statement checks skipped, and the products mha's
    prover recomputes reduced mod p instead of refused."""
    monkeypatch.setattr(mha, "exact_matmul", lambda a, b: wrap(a @ b))
    return prove_walk(unchecked(st.kind), st, weight_data)


def refusal(spec, proof) -> str:
    with pytest.raises(VerificationError) as e:
        verify_walk(spec, proof)
    assert e.value.check == "statement.range"
    return e.value.detail


# 1×1 statements of every kind, outputs computed mod p (exact when inside the bound).


def qkv_weights(w: int, b: int, j: str) -> dict[str, np.ndarray]:
    """Projection j is x·w + b; the other two are zero."""
    ws = {f"w_{i}": zeros(1, 1) for i in qkv.PROJECTIONS} | {
        f"b_{i}": zeros(1) for i in qkv.PROJECTIONS
    }
    ws[f"w_{j}"], ws[f"b_{j}"] = np.array([[w]]), np.array([b])
    return ws


def qkv_statement(x: int, w: int, b: int, j: str = "q") -> Statement:
    ws, xs = qkv_weights(w, b, j), np.array([[x]])
    out = {i: wrap(xs @ ws[f"w_{i}"] + ws[f"b_{i}"]) for i in qkv.PROJECTIONS}
    return Statement(qkv.KIND, (1, 1, 1), {"x": xs}, out, ws)


def decode_statement(x: int, w: int, b: int, j: str = "k") -> Statement:
    """T = l = e = h = 1, s0 = 0: the one step writes k_1, v_1 into the empty cache row 0."""
    new = qkv_statement(x, w, b, j)
    outputs = {"q": new.outputs["q"]} | {c: new.outputs[c][None] for c in kvcache.CACHES}
    inputs = {"x": new.inputs["x"], "k0": zeros(1, 1), "v0": zeros(1, 1)}
    return Statement(kvcache.KIND, (1, 1, 1, 1, 0), inputs, outputs, new.weights)


def mha_statement(q: int, k: int, a: int, v: int) -> Statement:
    """s = h = m = 1, not causal: S_M = q·k (nothing masked), O = a·v."""
    qs, ks, vs, a3 = np.array([[q]]), np.array([[k]]), np.array([[v]]), np.array([[[a]]])
    outputs = {"o": wrap(a3[0] @ vs), "s_m": wrap(qs @ ks.T)[None]}
    return Statement(mha.KIND, (1, 1, 1, 0), {"a": a3, "k": ks, "q": qs, "v": vs}, outputs, {})


def matmul_statement(a: list[list[int]], b: list[list[int]]) -> Statement:
    a_, b_ = np.array(a), np.array(b)
    dims = (*a_.shape, b_.shape[1])
    return Statement(matmul.KIND, dims, {"a": a_}, {"c": wrap(a_ @ b_)}, {"b": b_})


def posenc_statement(x: int, p: int) -> Statement:
    xs, ps = np.array([[x]]), np.array([[p]])
    return Statement(posenc.KIND, (1, 1, 1), {"x": xs}, {"o": wrap(xs + ps)}, {"p": ps})


def layernorm_statement(beta: int) -> Statement:
    """One row h = (−2, 2), γ = (2047, 2047): z = ∓C_z·… within ±C_z, y = z + β mod p."""
    h, gamma, b = np.array([[-2, 2]]), np.array([2047, 2047]), np.array([beta, beta])
    st = layernorm.make_statement(h, gamma, zeros(2), examples.layernorm_params(h, gamma))
    y = wrap(st.outputs["y"] + b)
    return dataclasses.replace(
        st, outputs={**st.outputs, "y": y}, weights={"beta": b, "gamma": gamma}
    )


def honest(st: Statement) -> Statement:
    """The same statement as the layer's own forward pass builds it."""
    if st.kind == layernorm.KIND:
        w = st.weights
        return layernorm.make_statement(st.inputs["h"], w["gamma"], w["beta"], params_of(st))
    if st.kind == qkv.KIND:
        return qkv.make_statement(st.inputs["x"], st.weights)
    if st.kind == matmul.KIND:
        return matmul.make_statement(st.inputs["a"], st.weights["b"])
    if st.kind == kvcache.KIND:
        prefill = {c: zeros(0, 1) for c in kvcache.CACHES}
        return kvcache.make_statement(st.inputs["x"], prefill, 1, st.weights)
    if st.kind == mha.KIND:
        i = st.inputs
        return mha.make_statement(i["q"], i["k"], i["v"], 1, False, lambda _: i["a"])
    return posenc.make_statement(st.inputs["x"], st.weights["p"])


C_Z = (1 << 15) - 1
"""The layernorm examples' clamp of z (b_z = 16)."""
# (build, largest inside the bound, just outside it, the relation the refusal names)
CASES = [
    (matmul_statement, ([[32767]], [[32769]]), ([[32768]], [[32768]]), "a·b"),
    (matmul_statement, ([[-32767]], [[32769]]), ([[-32768]], [[32768]]), "a·b"),
    (
        matmul_statement,
        ([[1, 1, 1]], [[357913941]] * 3),
        ([[1, 1, 1]], [[357913941], [357913941], [357913942]]),
        "a·b",
    ),
    (matmul_statement, ([[HALF]], [[1]]), ([[HALF, 1]], [[1], [1]]), "a·b"),
    (qkv_statement, (32767, 32769, 0), (32768, 32768, 0), "x·w_q + b_q"),
    (qkv_statement, (32767, 32768, 32767), (32767, 32768, 32768), "x·w_q + b_q"),
    (qkv_statement, (-32767, 32769, 0, "v"), (-32768, 32768, 0, "v"), "x·w_v + b_v"),
    (decode_statement, (32767, 32769, 0), (32768, 32768, 0), "x·w_k + b_k"),
    (decode_statement, (1, HALF - 1, 1, "q"), (1, HALF, 1, "q"), "x·w_q + b_q"),
    (mha_statement, (32767, 32769, 1, 1), (32768, 32768, 1, 1), "s_m = mask(q·kᵀ)"),
    (mha_statement, (-32767, -32769, 1, 1), (-32768, -32768, 1, 1), "s_m = mask(q·kᵀ)"),
    (mha_statement, (1, 1, 1 << 16, HALF >> 16), (1, 1, 1 << 16, 1 << 14), "o = a·v"),
    (posenc_statement, (HALF - 5, 5), (HALF - 5, 6), "o = x + p"),
    (posenc_statement, (-HALF, 0), (-HALF, -1), "o = x + p"),
    (layernorm_statement, (HALF - C_Z,), (HALF - C_Z + 1,), "y = z + β"),
]
IDS = [f"{build.__name__}-{inside}" for build, inside, *_ in CASES]


@pytest.mark.parametrize(("build", "inside", "outside", "relation"), CASES, ids=IDS)
def test_largest_operands_inside_the_bound_are_accepted(build, inside, outside, relation):
    st = build(*inside)
    reference = honest(st)
    for group in ("inputs", "outputs", "weights"):
        for name, t in getattr(reference, group).items():
            np.testing.assert_array_equal(getattr(st, group)[name], t, err_msg=name)
    spec = LAYERS[st.kind]
    verify_walk(spec, prove_walk(spec, st))


@pytest.mark.parametrize(("build", "inside", "outside", "relation"), CASES, ids=IDS)
def test_wrapped_statement_is_refused(build, inside, outside, relation, monkeypatch):
    st = build(*outside)
    proof = forge(st, monkeypatch)
    verify_walk(unchecked(st.kind), proof)  # a valid proof mod p: only the range check stops it
    assert relation in refusal(LAYERS[st.kind], proof)
    with pytest.raises(VerificationError, match="statement.range"):
        prove_walk(LAYERS[st.kind], st)  # the honest prover refuses it up front


def test_the_issue_qkv_is_refused(monkeypatch):
    st = qkv_statement(46341, 46341, 0)
    assert st.outputs["q"].tolist() == [[4634]]
    detail = refusal(LAYERS["qkv"], forge(st, monkeypatch))
    assert "x·w_q + b_q" in detail and str(46341 * 46341) in detail


def test_row_norms_accept_softmax_rows():
    """k·max|A|·max|B| = 2^30 exceeds (p−1)/2, but each row of A sums to 2^16 (a softmax
    row), so |C| ≤ 2^16·128: accepted — in matmul and in mha's A·V at s = 128."""
    a = np.zeros((4, 128), dtype=np.int64)
    a[np.arange(4), [0, 5, 9, 127]] = 1 << 16
    spec = LAYERS["matmul"]
    verify_walk(spec, prove_walk(spec, matmul.make_statement(a, np.full((128, 3), -128))))
    rng = np.random.default_rng(0)
    q, k = (rng.integers(-128, 128, (128, 1)) for _ in range(2))
    st = mha.make_statement(q, k, np.full((128, 1), -128), 1, True, mha.reference_softmax)
    assert st.inputs["a"].max() == 1 << 16  # causal row 0 puts all its mass on one key
    verify_walk(LAYERS["mha"], prove_walk(LAYERS["mha"], st))


def test_the_bound_is_conservative():
    """C = 0 here, but the bound 2^31 is what the verifier can justify: refused up front."""
    st = matmul.make_statement(np.array([[1 << 15, 1 << 15]]), np.array([[1 << 15], [-(1 << 15)]]))
    assert st.outputs["c"].tolist() == [[0]]
    with pytest.raises(VerificationError, match="statement.range"):
        prove_walk(LAYERS["matmul"], st)


# Committed operands.


def test_committed_table_is_still_checked(monkeypatch):
    """posenc's check reads only o and x (o − x is the table row it implies), so a committed
    P is covered as well: the wrapped statement is refused and nothing is mod p only."""
    st, data = commit_weights(posenc_statement(HALF, 1), PARAMS["blake2s"])
    assert mod_p_only(posenc.RELATIONS, st.committed) == []
    proof = forge(st, monkeypatch, data)
    assert not proof.statement.weights
    assert "o = x + p" in refusal(LAYERS["posenc"], proof)


def test_committed_weights_hold_mod_p_only():
    """The documented gap until range lookups: with committed W the wrapped qkv statement
    verifies, and the projections are reported as holding mod p only."""
    st, data = commit_weights(qkv_statement(46341, 46341, 0), PARAMS["blake2s"])
    proof = prove_walk(LAYERS["qkv"], st, data)
    verify_walk(LAYERS["qkv"], proof)
    assert mod_p_only(qkv.RELATIONS, proof.statement.committed) == [
        "x·w_q + b_q",
        "x·w_k + b_k",
        "x·w_v + b_v",
    ]


# The CLI.


def test_cli_refuses_the_wrapped_matmul(tmp_path):
    path = tmp_path / "wrapped.json"
    proof = prove_walk(unchecked("matmul"), matmul_statement([[46341]], [[46341]]))
    proof_file.save(proof, path)
    result = run("verify", path)
    assert result.exit_code == 1 and "rejected: check statement.range" in result.output
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, np.array([[1 << 15, 1 << 15]]))
    np.save(b, np.array([[1 << 15], [-(1 << 15)]]))
    result = run("prove", "matmul", "--a", a, "--b", b, "--out", tmp_path / "c.json")
    assert result.exit_code == 2 and "statement.range" in result.output
    assert not (tmp_path / "c.json").exists()


COMMIT = ["--commit-weights", "blake2s"]


@pytest.mark.parametrize(
    ("args", "meaning"),
    [
        (["matmul", "--m", 2, "--k", 3, "--n", 2], "holds over the integers"),
        (["matmul", "--m", 2, "--k", 4, "--n", 2, *COMMIT], "holds mod p only"),
        (["qkv", "--seq", 2, "--embed", 3, "--hidden", 2], "holds over the integers"),
        (["qkv", "--seq", 2, "--embed", 3, "--hidden", 2, *COMMIT], "holds mod p only"),
        (["posenc", "--seq", 2, "--context", 3, "--embed", 2, *COMMIT], "holds over the integers"),
    ],
)
def test_cli_says_what_the_statement_means(tmp_path, args, meaning):
    path = tmp_path / "p.json"
    assert run("prove", *args, "--out", path).exit_code == 0
    result = run("verify", path)
    assert result.exit_code == 0 and f"statement {meaning}" in result.output
    assert meaning in run("inspect", path).output


_signed = st.integers(-HALF, HALF) | st.integers(-40_000, 40_000) | st.integers(-130, 130)


@given(st.data(), st.integers(1, 4), st.integers(1, 12), st.integers(1, 4))
def test_cairo_sufficient_bound_is_sound(data, m, k, n):
    """The bound the Cairo verifier tries first (verifier_cairo/src/ranges.cairo, mirrored by
    tests.cairo_vectors.sufficient_bound) is at least β's first term: it only accepts what β
    accepts."""
    a = data.draw(st.lists(st.lists(_signed, min_size=k, max_size=k), min_size=m, max_size=m))
    b = data.draw(st.lists(st.lists(_signed, min_size=n, max_size=n), min_size=k, max_size=k))
    first_term = max(sum(map(abs, row)) for row in a) * max(abs(x) for row in b for x in row)
    assert sufficient_bound(a, b) >= first_term


def test_product_bound_takes_the_least_of_holder_and_cauchy_schwarz():
    """Rows spread thin over many columns: ‖a_i‖₂·‖b_j‖₂ is far below both Hölder bounds; a
    declared row norm (a hidden LayerNorm output) replaces the computed one."""
    a = np.full((2, 100), 10)
    b = np.full((100, 3), 10)
    assert product_bound(a, b) == 10_000  # every bound is exact here
    spiky = np.eye(100, dtype=np.int64)[:2] * 1000
    assert product_bound(spiky, b) == 10_000
    assert product_bound(with_row_norm(np.full((2, 100), 1000), 100), b) == 1000
