"""The multilinear PCS: the code against its definition, honest batch openings of every small
size with both hashes and both channels, the production parameters, and every tampered or
malicious variant rejected by the check that names it."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31, P, QM31Array
from cairn.prover.merkle.proof import MerkleOpening
from cairn.prover.mle import evaluate
from cairn.prover.pcs import (
    BLAKE2S_PARAMS,
    POSEIDON_PARAMS,
    Commitment,
    PcsParams,
    commit,
    open_batch,
    verify_batch,
)
from cairn.prover.pcs.code import encode, fold, inverse_double, layer_twiddles
from cairn.prover.pcs.domain import subgroup_generator, twiddles, twiddles_at
from cairn.prover.pcs.front import FrontReplay
from cairn.prover.pcs.params import fold_groups
from cairn.prover.pcs.queries import BatchLayout
from cairn.prover.pcs.verifier import fold_trees, verify_front, verify_groups
from tests.cairo_pcs_vectors import corrupt_fold

rng = np.random.default_rng(5)
HASHES = ["poseidon", "blake2s"]
CHANNELS = {"poseidon": Poseidon252Channel, "blake2s": Blake2sChannel}


def fast(hash_, **kw):
    """Weak parameters (few queries, little grinding) that keep the tests fast."""
    kw = {"n_queries": 12, "pow_bits": 2, **kw}
    return PcsParams(hash_, target_bits=0, **kw)


def rand_point(n):
    return tuple(QM31Array.random(rng, n).to_list())


def make_batch(params, sizes, n_claims, aligned=False):
    """Committed random polynomials with true claims; aligned: one claim each on suffixes of
    one point."""
    common = rand_point(max(sizes))
    prover_side, verifier_side = [], []
    for n, k in zip(sizes, n_claims):
        values = rng.integers(0, P, 1 << n)
        commitment, data = commit(values, params)
        points = [common[len(common) - n :]] if aligned else [rand_point(n) for _ in range(k)]
        claims = [Claim(z, evaluate(values, z)) for z in points]
        prover_side.append((data, claims))
        verifier_side.append((commitment, claims))
    return prover_side, verifier_side


def prove(params, prover_side, channel=None):
    return open_batch(prover_side, (channel or CHANNELS[params.hash])())


def verify(params, verifier_side, proof, channel=None):
    verify_batch(verifier_side, proof, params, (channel or CHANNELS[params.hash])())


def rejects(params, verifier_side, proof, check):
    with pytest.raises(VerificationError) as err:
        verify(params, verifier_side, proof)
    assert err.value.check == check, str(err.value)


# -- the code ------------------------------------------------------------------------------


def test_line_domain_structure():
    for log_size in (1, 2, 5, 9):
        tw = twiddles(log_size)
        assert np.array_equal(tw, twiddles_at(log_size, np.arange(len(tw))))
        assert np.all(tw != 0) and len(set(tw.tolist())) == len(tw)
        if log_size > 1:  # π(X_ℓ[2j]) is X_(ℓ−1)[j], whose twiddles are the even ones
            assert np.array_equal((2 * tw[0::2] ** 2 - 1) % P, twiddles(log_size - 1))
    x, y = subgroup_generator(31)
    assert (x * x + y * y) % P == 1


def basis_value(k, x, n):
    """b_k(x) = Π_i π^i(x)^(k_i) by its definition."""
    out, xi = 1, x
    for i in range(n):
        if (k >> i) & 1:
            out = out * xi % P
        xi = (2 * xi * xi - 1) % P
    return out


def full_domain(log_size):
    """X_ℓ[j] for every j: twiddles are the even positions, odd ones are their negations."""
    tw = twiddles(log_size)
    return np.stack([tw, (-tw) % P], axis=1).reshape(-1)


@pytest.mark.parametrize("n,beta", [(0, 1), (1, 1), (2, 2), (3, 2), (4, 1)])
def test_encode_is_the_basis_evaluation(n, beta):
    m = rng.integers(0, P, 1 << n)
    coeffs = [int(m[int(format(k, f"0{n}b")[::-1] or "0", 2)]) for k in range(1 << n)]
    domain = full_domain(n + beta)
    want = [sum(c * basis_value(k, int(x), n) for k, c in enumerate(coeffs)) % P for x in domain]
    assert encode(m, beta).tolist() == want


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 7), beta=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_n_folds_of_a_codeword_give_the_mle(n, beta, seed):
    local = np.random.default_rng(seed)
    m = local.integers(0, P, 1 << n)
    r = QM31Array.random(local, n).to_list()
    word = QM31Array.from_base(encode(m, beta))
    for i, tw in enumerate(layer_twiddles(n + beta, beta) if n else []):
        word = fold(word, inverse_double(tw), r[i])
    assert np.all(word.data == word.data[0]) and word.item(0) == evaluate(m, r)


# -- parameters ----------------------------------------------------------------------------


def test_production_parameters_reach_96_bits():
    for params in (POSEIDON_PARAMS, BLAKE2S_PARAMS):
        assert params.max_n_vars == 23
        assert all(params.security_bits(n, 8) >= 96 for n in range(params.max_n_vars + 1))
        assert params.security_bits(params.max_n_vars + 1) < 96
    weak = PcsParams("poseidon", n_queries=20)
    with pytest.raises(ValueError, match="exceed the largest size"):
        commit(np.zeros(1, dtype=np.int64), weak)


def test_fold_groups():
    assert fold_groups(0, 4) == [(0, 0)]
    assert fold_groups(4, 4) == [(0, 4)]
    assert fold_groups(10, 4) == [(0, 4), (4, 8), (8, 10)]


@pytest.mark.parametrize("hash_", HASHES)
def test_production_parameters_on_a_small_polynomial(hash_):
    params = POSEIDON_PARAMS if hash_ == "poseidon" else BLAKE2S_PARAMS
    prover_side, verifier_side = make_batch(params, [6], [1])
    proof = prove(params, prover_side)
    verify(params, verifier_side, proof)
    assert len(proof.layer_roots) == 1
    rejects(
        params, verifier_side, dataclasses.replace(proof, pow_nonce=proof.pow_nonce + 1), "pcs.pow"
    )


def test_commit_rejects_non_canonical_values():
    cases = [
        (np.array([P]), "canonical M31"),
        (np.array([-1]), "canonical M31"),
        (np.zeros(3, dtype=np.int64), "not a power of two"),
        (np.zeros((2, 2)), "1-D integer array"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            commit(bad, fast("poseidon"))


# -- honest openings -----------------------------------------------------------------------


@pytest.mark.parametrize("hash_", HASHES)
@pytest.mark.parametrize("n", range(11))
def test_single_polynomial_every_size(hash_, n):
    params = fast(hash_)
    prover_side, verifier_side = make_batch(params, [n], [1])
    verify(params, verifier_side, prove(params, prover_side))


@pytest.mark.parametrize("hash_", HASHES)
def test_batch_of_sizes_and_points(hash_):
    params = fast(hash_)
    prover_side, verifier_side = make_batch(params, [9, 3, 0, 6, 9], [2, 1, 3, 1, 1])
    proof = prove(params, prover_side)
    assert len(proof.merge.rounds) == 9 and len(proof.merged_values) == 5
    verify(params, verifier_side, proof)


@pytest.mark.parametrize("hash_", HASHES)
def test_aligned_batch_skips_the_merge(hash_):
    params = fast(hash_)
    prover_side, verifier_side = make_batch(params, [10, 7, 2, 0], [1] * 4, aligned=True)
    proof = prove(params, prover_side)
    assert proof.merge.rounds == [] and proof.merged_values == []
    verify(params, verifier_side, proof)


@pytest.mark.parametrize("hash_", HASHES)
@pytest.mark.parametrize("channel", [Poseidon252Channel, Blake2sChannel])
def test_any_hash_on_any_channel(hash_, channel):
    params = fast(hash_)
    prover_side, verifier_side = make_batch(params, [5, 4], [1, 2])
    verify(params, verifier_side, prove(params, prover_side, channel), channel)


@settings(max_examples=10, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 8), min_size=1, max_size=4),
    data=st.data(),
    hash_=st.sampled_from(HASHES),
)
def test_random_batches(sizes, data, hash_):
    params = fast(
        hash_, log_arity=data.draw(st.integers(1, 4)), log_blowup=data.draw(st.integers(1, 3))
    )
    n_claims = data.draw(st.lists(st.integers(1, 3), min_size=len(sizes), max_size=len(sizes)))
    prover_side, verifier_side = make_batch(params, sizes, n_claims)
    verify(params, verifier_side, prove(params, prover_side))


# -- tampered proofs -----------------------------------------------------------------------


@pytest.fixture(params=HASHES)
def batch(request):
    """Two polynomials (2^10 with two claims, 2^5): a merge and two committed layers."""
    params = fast(request.param)
    prover_side, verifier_side = make_batch(params, [10, 5], [2, 1])
    return params, prover_side, verifier_side, prove(params, prover_side)


@pytest.fixture(params=HASHES)
def single(request):
    """One 2^10 polynomial, one claim: no merge, layers after 4 and 8 folds."""
    params = fast(request.param)
    prover_side, verifier_side = make_batch(params, [10], [1])
    return params, prover_side, verifier_side, prove(params, prover_side)


def with_claim_value(verifier_side, j, k, delta):
    commitment, claims = verifier_side[j]
    claims = list(claims)
    claims[k] = Claim(claims[k].point, claims[k].value + delta)
    out = list(verifier_side)
    out[j] = (commitment, claims)
    return out


def test_wrong_opening_value(single, batch):
    params, _, verifier_side, proof = single
    rejects(params, with_claim_value(verifier_side, 0, 0, QM31.one()), proof, "pcs.claim")
    params, _, verifier_side, proof = batch
    for j, k in ((0, 0), (0, 1), (1, 0)):
        rejects(params, with_claim_value(verifier_side, j, k, QM31.one()), proof, "pcs.merge")


def test_wrong_merged_value(batch):
    params, _, verifier_side, proof = batch
    values = list(proof.merged_values)
    values[1] = values[1] + QM31.one()
    rejects(params, verifier_side, dataclasses.replace(proof, merged_values=values), "pcs.merge")


def test_wrong_round_coefficient(batch):
    params, _, verifier_side, proof = batch
    for field in ("merge", "fold"):
        rounds = [list(r) for r in getattr(proof, field).rounds]
        rounds[2][1] = rounds[2][1] + QM31.one()
        bad = dataclasses.replace(getattr(proof, field), rounds=rounds)
        check = "pcs.merge" if field == "merge" else "pcs.claim"
        rejects(params, verifier_side, dataclasses.replace(proof, **{field: bad}), check)


def replace_opening(proof, field, i, opening):
    openings = list(getattr(proof, field))
    openings[i] = opening
    return dataclasses.replace(proof, **{field: openings})


def test_tampered_merkle_paths(batch):
    params, _, verifier_side, proof = batch
    for field in ("poly_openings", "layer_openings"):
        for i, op in enumerate(getattr(proof, field)):
            for s in {0, len(op.siblings) - 1} if op.siblings else ():  # a full opening has none
                siblings = list(op.siblings)
                siblings[s] ^= 1
                bad = replace_opening(proof, field, i, MerkleOpening(op.leaves, siblings))
                rejects(params, verifier_side, bad, "merkle.path")


def test_tampered_leaf_values(batch):
    """A changed value in any opened leaf (polynomial or folding layer) breaks its path."""
    params, _, verifier_side, proof = batch
    for field in ("poly_openings", "layer_openings"):
        for i, op in enumerate(getattr(proof, field)):
            leaves = [list(row) for row in op.leaves]
            leaves[-1][0] = (leaves[-1][0] + 1) % P
            bad = replace_opening(proof, field, i, MerkleOpening(leaves, op.siblings))
            rejects(params, verifier_side, bad, "merkle.path")
            leaves[-1][0] = P  # a limb >= p: never a canonical value
            bad = replace_opening(proof, field, i, MerkleOpening(leaves, op.siblings))
            rejects(params, verifier_side, bad, "merkle.value")


def test_wrong_root_and_other_commitment(single):
    params, _, verifier_side, proof = single
    (commitment, claims) = verifier_side[0]
    moved = dataclasses.replace(commitment, root=commitment.root ^ 1)
    rejects(params, [(moved, claims)], proof, "pcs.claim")  # the root is in the transcript
    other, _ = commit(rng.integers(0, P, 1 << 10), params)
    rejects(params, [(other, claims)], proof, "pcs.claim")
    roots = list(proof.layer_roots)
    roots[0] ^= 1
    rejects(params, verifier_side, dataclasses.replace(proof, layer_roots=roots), "pcs.claim")
    not_a_digest = dataclasses.replace(commitment, root=1 << 256)
    rejects(params, [(not_a_digest, claims)], proof, "merkle.digest")


def test_counts_come_from_the_parameters(single, batch):
    params, prover_side, verifier_side, proof = single
    fewer = dataclasses.replace(
        proof, layer_roots=proof.layer_roots[:-1], layer_openings=proof.layer_openings[:-1]
    )
    rejects(params, verifier_side, fewer, "pcs.layer_count")
    more = dataclasses.replace(
        proof,
        layer_roots=[*proof.layer_roots, proof.layer_roots[0]],
        layer_openings=[*proof.layer_openings, proof.layer_openings[0]],
    )
    rejects(params, verifier_side, more, "pcs.layer_count")
    short = dataclasses.replace(
        proof, fold=dataclasses.replace(proof.fold, rounds=proof.fold.rounds[:-1])
    )
    rejects(params, verifier_side, short, "pcs.round_count")
    for field in ("poly_openings", "layer_openings"):
        for i, op in enumerate(getattr(proof, field)):
            dropped = replace_opening(proof, field, i, MerkleOpening(op.leaves[:-1], op.siblings))
            rejects(params, verifier_side, dropped, "pcs.query_count")
    # A prover running fewer queries: the parameters are in the transcript.
    weak = dataclasses.replace(params, n_queries=params.n_queries - 1)
    weak_side = [(dataclasses.replace(d, params=weak), c) for d, c in prover_side]
    rejects(params, verifier_side, prove(weak, weak_side), "pcs.claim")
    params, _, verifier_side, proof = batch
    rejects(
        params,
        verifier_side,
        dataclasses.replace(proof, merged_values=proof.merged_values[:1]),
        "pcs.merge_count",
    )
    # Two faults: the merged values are counted before the fold rounds, as calldata reads them.
    both = dataclasses.replace(
        proof,
        merged_values=proof.merged_values[:1],
        fold=dataclasses.replace(proof.fold, rounds=proof.fold.rounds[:-1]),
    )
    rejects(params, verifier_side, both, "pcs.merge_count")
    rejects(
        params,
        verifier_side,
        dataclasses.replace(proof, poly_openings=proof.poly_openings[:1]),
        "pcs.opening_count",
    )
    rounds = [[*r, QM31.one()] for r in proof.merge.rounds]
    bad = dataclasses.replace(proof, merge=dataclasses.replace(proof.merge, rounds=rounds))
    rejects(params, verifier_side, bad, "pcs.round_degree")


def test_malformed_fields(single):
    params, _, verifier_side, proof = single
    rejects(params, verifier_side, dataclasses.replace(proof, pow_nonce=1 << 64), "pcs.pow")
    rejects(params, verifier_side, dataclasses.replace(proof, pow_nonce=-1), "pcs.pow")
    rejects(
        params,
        verifier_side,
        dataclasses.replace(proof, layer_roots=[1 << 256, *proof.layer_roots[1:]]),
        "merkle.digest",
    )


@pytest.mark.parametrize("hash_", HASHES)
def test_bad_pow_nonce(hash_):
    params = fast(hash_, pow_bits=10)
    prover_side, verifier_side = make_batch(params, [7], [1])
    proof = prove(params, prover_side)
    for nonce in (proof.pow_nonce + 1, proof.pow_nonce ^ 1 << 40):
        rejects(params, verifier_side, dataclasses.replace(proof, pow_nonce=nonce), "pcs.pow")


def test_tampered_final_value(single):
    params, _, verifier_side, proof = single
    bad = dataclasses.replace(proof, final_value=proof.final_value + QM31.one())
    rejects(params, verifier_side, bad, "pcs.claim")


def test_statement_mismatch(single):
    params, _, verifier_side, proof = single
    commitment, claims = verifier_side[0]
    rejects(
        params,
        [
            (
                dataclasses.replace(
                    commitment, hash="blake2s" if params.hash == "poseidon" else "poseidon"
                ),
                claims,
            )
        ],
        proof,
        "pcs.hash",
    )
    rejects(
        params,
        [(commitment, [Claim(claims[0].point[1:], claims[0].value)])],
        proof,
        "pcs.claim_shape",
    )
    rejects(params, [(Commitment(commitment.root, 99, params.hash), claims)], proof, "pcs.size")


# -- malicious provers (transcript-consistent, wrong committed data) ------------------------


@pytest.mark.parametrize("hash_", HASHES)
@pytest.mark.parametrize("bad_round", range(1, 9))
def test_wrong_fold_in_any_layer(hash_, bad_round):
    """The prover commits a layer that is not the fold of the previous one (all values off
    by one after round `bad_round`; layers are committed after rounds 4 and 8, later folds
    are never sent): caught where the verifier's fold meets the committed layer."""
    params = fast(hash_)
    prover_side, verifier_side = make_batch(params, [10], [1])
    with corrupt_fold(bad_round):
        proof = prove(params, prover_side)
    rejects(params, verifier_side, proof, "pcs.fold")


@pytest.mark.parametrize("hash_", HASHES)
@pytest.mark.parametrize("sizes", [[0], [3], [10], [10, 6]])
def test_false_claim_with_a_consistent_sumcheck(hash_, sizes):
    """Claims true for another message m' while the tree commits to m: the sum-check and the
    final value are consistent (computed from m'), the layers are honest folds of m's
    codeword, so the queries reach m~(ρ), not the final value m'~(ρ)."""
    params = fast(hash_)
    prover_side, verifier_side = make_batch(params, sizes, [1] * len(sizes), aligned=True)
    data, claims = prover_side[0]
    fake = (data.values + 1) % P
    lie = [Claim(c.point, evaluate(fake, c.point)) for c in claims]
    prover_side[0] = (dataclasses.replace(data, values=fake), lie)
    verifier_side[0] = (verifier_side[0][0], lie)
    rejects(params, verifier_side, prove(params, prover_side), "pcs.final_layer")


def test_a_group_is_the_sum_of_its_trees(hash_: str = "poseidon") -> None:
    """What a session carries when it cuts a group between trees: the trees' contributions,
    folded to the group's end one range at a time, add up to the whole group's values, for
    every group and every cut (sizes 10, 7, 9, 10 enter group (0, 4] at levels 0, 3, 1, 0;
    sizes 5 and 4 group (4, 8], after its layer, at levels 5 and 6)."""
    params = fast(hash_)
    prover_side, statement = make_batch(params, [10, 7, 9, 10, 5, 4], [1] * 6)
    proof = prove(params, prover_side)
    phase = verify_front(statement, proof, params, CHANNELS[hash_]())
    layout = BatchLayout.of([c.n_vars for c, _ in statement], params.log_arity)
    assert [layout.group_trees(g) for g in range(len(layout.groups))] == [4, 3, 1]
    expected = None
    for g, whole in enumerate(verify_groups(statement, proof, params, phase)):
        trees = layout.group_trees(g)
        for cut in range(1, trees):
            parts = [
                fold_trees(statement, proof, params, phase, g, part, expected)
                for part in (range(cut), range(cut, trees))
            ]
            assert np.array_equal((parts[0] + parts[1]) % P, whole)
        expected = whole
    assert layout.tree_position(4) == (1, 0) and layout.tree_position(6) == (1, 2)


def test_front_stages_run_in_order(batch):
    """`FrontReplay` refuses a stage before the one it follows: reducing before every
    polynomial is absorbed, finishing before every polynomial is reduced (the contract's
    step parts come in order; the Cairo mirror panics `pcs.stage`)."""
    params, _, verifier_side, proof = batch
    commitments = [c for c, _ in verifier_side]
    replay = FrontReplay.start(params, commitments, proof, CHANNELS[params.hash]())
    with pytest.raises(ValueError, match="absorbed"):
        replay.reduce([verifier_side[0][1]])
    replay.absorb([on for _, on in verifier_side])
    with pytest.raises(ValueError, match="reduced"):
        replay.finish()
