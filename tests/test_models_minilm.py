"""all-MiniLM-L6-v2: loading, tokenizer, the float64 reference against published similarities
and an independent per-head formulation, the integer pipeline's semantics, bounds and accuracy,
and the import (calibrate + commit) on a tiny synthetic model."""

import hashlib
import json
import math
import struct
from decimal import Decimal, getcontext

import numpy as np
import pytest
from tokenizers import Tokenizer as HfTokenizer
from typer.testing import CliRunner

from cairn.cli import app
from cairn.models.minilm import accuracy, calibrate, model_file, quantized, reference, source
from cairn.models.minilm.quantized import QuantModel, Trace, Widths
from cairn.models.minilm.tokenizer import Tokenizer
from cairn.models.safetensors import parse_safetensors, read_safetensors
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs import POSEIDON_PARAMS
from cairn.prover.pcs.prover import commit_tensor
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import verify_walk
from cairn.serializer import proof_file
from tests.tiny_minilm import write_safetensors

runner = CliRunner()


@pytest.fixture(scope="module")
def weights():
    return source.load()


@pytest.fixture(scope="module")
def tok():
    return Tokenizer()


@pytest.fixture(scope="module")
def calibration_ids(tok):
    return [tok.encode(s).ids for s in accuracy.sentences("calibration")]


@pytest.fixture(scope="module")
def model(weights, calibration_ids):
    return calibrate.quantize(weights, calibrate.observe(weights, calibration_ids), Widths())


@pytest.fixture(scope="module")
def evaluation(weights, tok):
    """The evaluation sentences' token ids and reference embeddings."""
    ids = [tok.encode(s).ids for s in accuracy.sentences("evaluation")]
    return ids, accuracy.float_embeddings(weights, ids)


def one(w, ids):
    return reference.forward(w, ids[None, :], np.ones((1, len(ids)), bool))[0]


# --- safetensors and the package -----------------------------------------------------------


def test_safetensors_reads_what_was_written(tmp_path):
    tensors = {
        "a": np.arange(6, dtype="<f4").reshape(2, 3) / 7,
        "b": np.array([-(2**40), 3, 0, 9], dtype="<i8"),
        "c": np.array(math.pi, dtype="<f8"),
    }
    path = tmp_path / "t.safetensors"
    write_safetensors(path, tensors)
    got, sha = read_safetensors(path)
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    assert set(got) == set(tensors)
    for name, arr in tensors.items():
        assert got[name].dtype == arr.dtype and got[name].shape == arr.shape
        assert np.array_equal(got[name], arr)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda b: b[:5], "too short"),
        (lambda b: struct.pack("<Q", 1 << 40) + b[8:], "exceeds the file"),
        (lambda b: b[:8] + b"x" + b[9:], "not JSON"),
        (lambda b: b[:-1], "does not hold"),
        (lambda b: b.replace(b'"F32"', b'"Q99"'), "unsupported dtype"),
        (lambda b: b.replace(b'"shape": [2, 3]', b'"shape": [2, 4]'), "does not hold"),
        (lambda b: b.replace(b'"shape": [2, 3]', b'"shape": [-2,3]'), "integers >= 0"),
    ],
)
def test_safetensors_refuses_malformed_files(tmp_path, mutate, message):
    path = tmp_path / "t.safetensors"
    write_safetensors(path, {"a": np.zeros((2, 3), dtype="<f4")})
    with pytest.raises(ValueError, match=message):
        parse_safetensors(mutate(path.read_bytes()))


def test_the_pinned_package_is_read(weights):
    c = weights.config
    assert (c.layers, c.d, c.heads, c.head_dim, c.ffn, c.vocab, c.positions, c.eps) == (
        6, 384, 12, 32, 1536, 30522, 512, 1e-12,
    )  # fmt: skip
    assert weights.sha256 == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def test_a_missing_package_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(source.importlib.util, "find_spec", lambda _: None)
    with pytest.raises(source.ModelMissingError, match="run scripts/setup.sh"):
        source.model_dir()
    result = runner.invoke(app, ["model", "import", "minilm", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "run scripts/setup.sh" in result.output
    assert list(tmp_path.iterdir()) == []


# --- tokenizer -----------------------------------------------------------------------------


def test_token_ids_are_the_tokenizers_library_s(tok):
    hf = HfTokenizer.from_file(str(source.model_dir() / "tokenizer.json"))
    hf.no_padding()  # the file pads to 128; Cairn pads nothing (the proof pads to ŝ)
    for text in ["Hello, world!", "The café's naïve résumé.", "MiniLM embeds sentences."]:
        t = tok.encode(text)
        assert t.ids.tolist() == hf.encode(text).ids and not t.truncated
        assert (t.ids[0], t.ids[-1]) == (101, 102)  # [CLS] ... [SEP]


def test_long_text_is_truncated_and_says_so(tok):
    t = tok.encode("word " * 500)
    assert len(t.ids) == 128 and t.truncated and t.ids[-1] == 102


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_is_an_error(tok, text):
    with pytest.raises(ValueError, match="empty text"):
        tok.encode(text)


# --- float64 reference ---------------------------------------------------------------------


def test_reference_reproduces_the_published_similarities(weights, tok):
    """sbert.net's quick start prints these cosines for all-MiniLM-L6-v2 (4 decimals)."""
    texts = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    emb = np.stack([one(weights, tok.encode(t).ids) for t in texts])
    sim = emb @ emb.T
    assert np.allclose([sim[0, 1], sim[0, 2], sim[1, 2]], [0.6660, 0.1046, 0.1411], atol=5e-5)


def test_padding_changes_nothing(weights, tok):
    texts = ["A short one.", "A somewhat longer sentence with several more tokens in it."]
    ids = [tok.encode(t).ids for t in texts]
    s = max(map(len, ids))
    batch, mask = np.zeros((2, s), np.int64), np.zeros((2, s), bool)
    for i, t in enumerate(ids):
        batch[i, : len(t)], mask[i, : len(t)] = t, True
    together = reference.forward(weights, batch, mask)
    for i, t in enumerate(ids):
        assert np.allclose(together[i], one(weights, t), atol=1e-12)


def per_head_reference(w, ids):
    """Every tapped activation, recomputed with loops over heads and rows, scalar erf and a
    two-pass variance: a formulation independent of reference.forward's batching."""
    c = w.config
    out = {}

    def ln(x, name):
        g, b = w[name + ".weight"], w[name + ".bias"]
        return np.stack([(r - r.mean()) / math.sqrt(np.var(r) + c.eps) * g + b for r in x])

    def lin(name, x):
        return np.stack([w[name + ".weight"] @ r + w[name + ".bias"] for r in x])

    e = "embeddings."
    x = np.stack(
        [
            w[e + "word_embeddings.weight"][t]
            + w[e + "position_embeddings.weight"][i]
            + w[e + "token_type_embeddings.weight"][0]
            for i, t in enumerate(ids)
        ]
    )
    x = out["embed.ln"] = ln(x, e + "LayerNorm")
    for layer in range(c.layers):
        p, s = f"encoder.layer.{layer}.", f"layer{layer}."
        q, k, v = (lin(p + f"attention.self.{n}", x) for n in ("query", "key", "value"))
        out[s + "q"], out[s + "k"], out[s + "v"] = q / math.sqrt(c.head_dim), k, v
        ctx = np.zeros_like(x)
        for h in range(c.heads):
            cols = slice(h * c.head_dim, (h + 1) * c.head_dim)
            for i in range(len(ids)):
                logits = [q[i, cols] @ k[j, cols] / math.sqrt(c.head_dim) for j in range(len(ids))]
                weights_ = np.exp(np.array(logits) - max(logits))
                ctx[i, cols] = (weights_ / weights_.sum()) @ v[:, cols]
        out[s + "ctx"] = ctx
        out[s + "attn"] = lin(p + "attention.output.dense", ctx)
        x = out[s + "ln1"] = ln(x + out[s + "attn"], p + "attention.output.LayerNorm")
        g = out[s + "ffn_in"] = lin(p + "intermediate.dense", x)
        act = np.vectorize(lambda z: 0.5 * z * (1 + math.erf(z / math.sqrt(2))))(g)
        out[s + "ffn_out"] = lin(p + "output.dense", act)
        x = out[s + "ln2"] = ln(x + out[s + "ffn_out"], p + "output.LayerNorm")
    return out


def test_reference_matches_a_per_head_formulation_site_by_site(weights, tok):
    ids = tok.encode("Layer by layer, the two formulations must agree.").ids
    seen = {}
    reference.forward(weights, ids[None, :], np.ones((1, len(ids)), bool), seen.__setitem__)
    expected = per_head_reference(weights, ids)
    assert set(seen) == set(expected)
    for site, values in expected.items():
        assert np.allclose(seen[site], values, atol=1e-9), site


def test_paraphrases_are_nearest_neighbours(evaluation):
    """The evaluation set is 15 paraphrase pairs: each sentence's nearest is its partner."""
    _, emb = evaluation
    sim = emb @ emb.T
    np.fill_diagonal(sim, -1)
    assert [int(i) for i in sim.argmax(axis=1)] == [i ^ 1 for i in range(len(emb))]
    pairs = [sim[i, i ^ 1] for i in range(len(emb))]
    assert min(pairs) > 0.5 > float(np.median(sim[sim > -1]))


# --- integer semantics ---------------------------------------------------------------------


def test_requant_rounds_half_up_with_a_range_checkable_remainder():
    rng = np.random.default_rng(1)
    p = rng.integers(-(2**24), 2**24, 5000)
    trace = Trace()
    for k, b in [(1, 29), (7, 20), (16, 8)]:
        y = quantized.requant(trace, "s", p, k, b)
        unclamped = np.floor((p + 2 ** (k - 1)) / 2**k).astype(np.int64)
        lim = 2 ** (b - 1) - 1
        assert np.array_equal(y, np.clip(unclamped, -lim, lim))
        rem = p + 2 ** (k - 1) - 2**k * unclamped
        assert rem.min() >= 0 and rem.max() < 2**k
    assert trace.clamped["s"] == int(np.sum(np.abs(np.floor((p + 2**15) / 2**16)) > 127))
    assert np.array_equal(quantized.requant(Trace(), "s", np.array([-3, -2, -1, 1, 2, 3]), 1, 8),
                          [-1, -1, 0, 1, 1, 2])  # fmt: skip
    for k, b in [(0, 8), (23, 8)]:
        with pytest.raises(ValueError, match="need 1 <= k, b \\+ k <= 30"):
            quantized.requant(Trace(), "s", p, k, b)


def test_values_reaching_2_30_are_refused_by_name():
    with pytest.raises(ValueError, match="x.acc: a value of magnitude 2\\^30"):
        quantized.requant(Trace(), "x", np.array([2**30 - 2]), 2, 8)


def gelu_exact(x: Decimal) -> Decimal:
    """x·Φ(x) from the erf series at 60 digits (|x| <= 6)."""
    getcontext().prec = 60
    term, total, n, z = x / Decimal(2).sqrt(), Decimal(0), 0, x / Decimal(2).sqrt()
    while abs(term) > Decimal(10) ** -50:
        total += term / (2 * n + 1)
        n += 1
        term = -term * z * z / n
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
    return x * (1 + 2 * total / pi.sqrt()) / 2


@pytest.mark.parametrize("f_in, b_in, f_out", [(9, 12, 9), (10, 13, 7), (8, 12, 11)])
def test_gelu_table_is_the_exactly_rounded_erf_gelu(f_in, b_in, f_out):
    table = quantized.gelu_table(f_in, b_in, f_out, 30)
    assert len(table) == 2**b_in
    for g in range(-(2 ** (b_in - 1)), 2 ** (b_in - 1), 7):
        x = Decimal(g) / 2**f_in
        if abs(x) <= 6:
            want = int((gelu_exact(x) * 2**f_out + Decimal("0.5")).to_integral_value("ROUND_FLOOR"))
            assert table[g + 2 ** (b_in - 1)] == want, g


def test_gelu_table_breaks_near_ties_by_the_exact_value():
    """For large x, GELU(x)·2^f_out is just below G = x·2^f_out: a G ending in .5 rounds down."""
    f_in, b_in, f_out = 4, 10, 1
    table = quantized.gelu_table(f_in, b_in, f_out, 30)
    for g in range(8 * 2**f_in, 2 ** (b_in - 1)):
        big_g = Decimal(g) / 2 ** (f_in - f_out)
        want = math.floor(big_g + Decimal("0.5")) - (1 if (big_g + Decimal("0.5")) % 1 == 0 else 0)
        assert table[g + 2 ** (b_in - 1)] == want


def test_gelu_table_outputs_fit_their_width():
    table = quantized.gelu_table(8, 15, 5, 12)
    assert table.max() == 2**11 - 1 and table.min() >= -(2**11)
    assert np.array_equal(table, np.clip(quantized.gelu_table(8, 15, 5, 30), -2047, 2047))


def test_norm_factor_is_the_floor_square_root():
    rng = np.random.default_rng(2)
    for _ in range(200):
        h = [int(v) for v in rng.integers(-(2**16), 2**16, 384)]
        s1, s2 = sum(h), sum(v * v for v in h)
        r = layernorm.norm_factor(s1, s2, 384, 24, 0)
        den = 384 * s2 - s1 * s1
        assert r * r * den <= 384**2 * 2**48 < (r + 1) ** 2 * den


def test_integer_layer_norm_tracks_the_float_one():
    d, f_h, f_out = 384, 10, 11
    rng = np.random.default_rng(3)
    gamma, beta = rng.uniform(0.3, 1.5, d), rng.normal(0, 0.2, d)
    h = rng.normal(0, 2, (16, d)) * rng.uniform(0.1, 3, (16, 1))
    h[0, 5] = 40.0  # an outlier feature
    config = source.Config(1, d, 12, 4 * d, 10, 16, 1e-12)
    widths = Widths()
    scales = {"n": f_out, "n.y": widths.norm - 6, "n.gamma": 10, "n.beta": f_out}
    ints = {"n.gamma": np.rint(gamma * 2**10).astype(np.int64),
            "n.beta": np.rint(beta * 2**f_out).astype(np.int64)}  # fmt: skip
    bits = {"n": widths.act, "n.y": widths.norm}
    m = QuantModel(config, widths, ints, scales, bits)
    h_int = np.rint(h * 2**f_h).astype(np.int64)
    got = quantized.Pass(m, Trace()).layer_norm("n", h_int, f_h) * 2.0**-f_out
    want = reference.layer_norm(h_int * 2.0**-f_h, gamma, beta, 1e-12)
    # y at 2^-10 and the row factor r (≈ 2^11 here) bound the error, relative to |y| for r
    err = np.abs(got - want)
    assert np.all(err <= 4 * 2.0**-f_out + 2e-3 * np.abs(want)), err.max()


def test_full_forward_at_128_tokens_stays_in_m31_and_near_the_reference(model, weights, tok):
    text = " ".join(accuracy.sentences("evaluation"))
    ids = tok.encode(text).ids
    assert len(ids) == 128
    trace = Trace()
    pooled = quantized.forward(model, ids, trace)
    assert pooled.count == 128 and pooled.sum.shape == (384,)
    assert max(trace.max_log2().values()) < 30
    assert float(pooled.embedding() @ one(weights, ids)) > 0.998


def test_every_layer_norm_is_a_provable_layernorm_statement(model, tok, monkeypatch):
    """At 128 tokens each of the 13 LayerNorms, with its layer_norm_params, is a layernorm
    statement whose output is quantized.py's; the widest (layer0.ln2) is proven."""
    seen = []
    layer_norm = quantized.Pass.layer_norm

    def record(run, name, h, f_h):
        out = layer_norm(run, name, h, f_h)
        seen.append((name, run.layer_norm_params(name, h, f_h), h, out))
        return out

    monkeypatch.setattr(quantized.Pass, "layer_norm", record)
    quantized.forward(model, tok.encode(" ".join(accuracy.sentences("evaluation"))).ids)
    assert len(seen) == 13
    w = model.weights
    for name, p, h, out in seen:
        assert p.problem() is None and p.limb_bits <= 9, name
        st = layernorm.make_statement(h, w[name + ".gamma"], w[name + ".beta"], p)
        assert np.array_equal(st.outputs["y"], out), name
        if name == "layer0.ln2":
            spec = LAYERS["layernorm"]
            verify_walk(spec, prove_walk(spec, st))


def test_overflow_aborts_naming_the_site(model, tok):
    w = dict(model.weights)
    w["layer0.w_q"] = w["layer0.w_q"] << 8
    broken = QuantModel(model.config, model.widths, w, model.scales, model.bits)
    with pytest.raises(ValueError, match="layer0.q.matmul: .*M31"):
        quantized.forward(broken, tok.encode("Too wide.").ids)


@pytest.mark.parametrize("ids", [[], [101, 30522, 102], [-1]])
def test_bad_token_ids_are_refused(model, ids):
    with pytest.raises(ValueError, match="tokens|token ids"):
        quantized.forward(model, np.array(ids, dtype=np.int64))


def test_default_widths_bound_every_matmul_below_2_30(model):
    bounds = calibrate.worst_case_log2(model)
    assert set(bounds) >= {"q", "k", "v", "scores", "av", "attn", "ffn_in", "ffn_out", "ln.z"}
    assert max(bounds.values()) < 30


def test_every_site_has_a_scale_and_width(model):
    sites = set(model.scales) - set(model.weights)
    assert sites == set(calibrate.site_names(model.config)) == set(model.bits) - set(model.weights)


def test_weights_fit_their_widths(model):
    for name, t in model.weights.items():
        assert np.abs(t).max() < 2 ** (model.bits[name] - 1), name


def test_accuracy_on_the_evaluation_sentences(model, evaluation):
    acc = accuracy.measure(model, *evaluation)
    assert acc.n == 30 and min(acc.cosines) >= 0.998 and acc.same_neighbour == 30
    assert max(acc.max_log2.values()) < 30


# --- import on a tiny synthetic model ------------------------------------------------------


def test_row_blocks_keep_each_commitment_within_the_pcs_limit():
    assert model_file.row_blocks((30522, 384), 23) == [(0, 16384), (16384, 30522)]
    assert model_file.row_blocks((384, 1536), 23) == [(0, 384)]
    assert model_file.row_blocks((5,), 1) == [(0, 2), (2, 4), (4, 5)]


def test_import_commits_every_weight_once_and_rerunning_is_a_no_op(tiny_folder, tmp_path):
    seen = []
    path, written = model_file.import_model(
        tmp_path, tiny_folder, advance=lambda *a: seen.append(a)
    )
    assert written and path == tmp_path / model_file.FILE_NAME
    assert seen[-1][1] == seen[-1][2]  # the progress reaches its total
    before = path.read_bytes()
    assert model_file.import_model(tmp_path, tiny_folder) == (path, False)
    assert path.read_bytes() == before
    imported = model_file.load(path, tiny_folder)
    doc = json.loads(before)
    assert doc["source"]["sha256"] == read_safetensors(tiny_folder / "model.safetensors")[1]
    assert set(doc["tensors"]) == set(imported.model.weights) == set(imported.blocks)
    committed, _ = commit_tensor(imported.model.weights["layer0.w_1"], POSEIDON_PARAMS)
    assert imported.blocks["layer0.w_1"] == [model_file.Block(0, 8, committed)]
    assert list(tmp_path.iterdir()) == [path]


def test_a_damaged_model_file_is_replaced_and_refused_on_load(tiny_folder, tmp_path):
    path = tmp_path / model_file.FILE_NAME
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        model_file.load(path, tiny_folder)
    assert model_file.import_model(tmp_path, tiny_folder)[1]
    doc = json.loads(path.read_text())
    doc["tensors"]["layer0.w_q"]["blocks"][0]["end"] = 7
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="rows or shape do not fit"):
        model_file.load(path, tiny_folder)


def test_import_refuses_a_bad_out_folder_before_working(tmp_path):
    result = runner.invoke(app, ["model", "import", "minilm", "--out", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "not a directory" in result.output
    assert "Traceback" not in result.output and list(tmp_path.iterdir()) == []


def test_bench_accuracy_refuses_unknown_widths():
    result = runner.invoke(app, ["bench", "accuracy", "minilm", "--width", "bogus=3"])
    assert result.exit_code == 2 and "expected KIND=BITS" in result.output


def test_prove_with_committed_weights_declares_and_certifies_them(tiny_import, tmp_path):
    """`cairn prove model minilm --commit-weights poseidon`: every weight committed (the model
    file's roots, checked), read at its declared range, the range walks certifying the ranges
    in the file; `cairn verify` accepts it over the integers. A model file recording another
    root is refused before any proof."""
    out = tmp_path / "m.json"
    prove = ["prove", "model", "minilm", "--text", "A man is eating food.", "--model-file",
             str(tiny_import), "--out", str(out), "--commit-weights", "poseidon"]  # fmt: skip
    result = runner.invoke(app, [*prove, "--model-id", "0x77"])
    assert result.exit_code == 0, result.output
    assert "20 weights committed, 2 range walks certifying" in result.output
    assert "bound to model 0x77" in result.output
    result = runner.invoke(app, ["verify", str(out), "--model-file", str(tiny_import)])
    assert result.exit_code == 0 and "holds over the integers" in result.output, result.output
    proof, certificates = proof_file.load_bundle(out)
    assert not proof.statement.weights and len(proof.statement.declared) == 20
    assert [len(c.statement.committed) for c in certificates] == [16, 4]
    for args, message in [
        (["--commit-weights", "blake2s"], "commitments are poseidon's"),
        (["--model-id", "0x77"], "give --commit-weights too"),
    ]:
        result = runner.invoke(app, [*prove[:-2], *args])
        assert result.exit_code == 2 and message in result.output, result.output
    doc = json.loads(tiny_import.read_text())
    doc["tensors"]["layer0.w_q"]["blocks"][0]["committed"]["commitment"]["root"] = 1
    other = tmp_path / "other.model.json"
    other.write_text(json.dumps(doc))
    result = runner.invoke(app, [*prove[:6], str(other), *prove[7:]])
    assert result.exit_code == 2 and "its commitment of layer0.w_q" in result.output
    assert "Traceback" not in result.output
