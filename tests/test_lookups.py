"""Batched LogUp-GKR (docs/lookups.md): round trips on both channels, the leaf claims and roots
against brute force, the layer kernel against the generic sum-check, lookup relations that
balance and ones that do not, and every single-field tampering rejected by a named check."""

import json
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.prover.channels.blake2s import Blake2sChannel
from cairn.prover.channels.poseidon252 import Poseidon252Channel
from cairn.prover.errors import VerificationError
from cairn.prover.fields import QM31, QM31Array
from cairn.prover.lookups import prover as lookups_prover
from cairn.prover.lookups.circuit import combine
from cairn.prover.lookups.proof import LogUpProof
from cairn.prover.lookups.prover import Fractions, children, prove_logup, tree
from cairn.prover.lookups.sumcheck import LayerShare, prove_layer
from cairn.prover.lookups.verifier import check_balance, verify_logup
from cairn.prover.mle import eq_table, fold
from cairn.prover.sumcheck.prover import Product, prove_sumcheck
from cairn.serializer.codec import decode, encode
from tests.proof_mutations import mutations

CHANNELS = [Poseidon252Channel, Blake2sChannel]
rng = np.random.default_rng(11)


def random_fractions(n_vars, singles, gen=rng):
    q = QM31Array.random(gen, 1 << n_vars)
    return Fractions(None if singles else QM31Array.random(gen, 1 << n_vars), q)


def leaf_value(table, point):
    """The MLE of the raw leaves at `point`, by fixing one variable at a time (docs/sumcheck.md)."""
    for r in point:
        table = fold(table, r)
    return table.item(0)


def numerators(f):
    return (
        f.numerators
        if f.numerators is not None
        else QM31Array.from_base(np.ones(len(f.denominators), dtype=np.int64))
    )


def check_leaves(instances, leaves):
    """The caller's duty (docs/lookups.md): settle each leaf claim against the leaves."""
    for i, (f, leaf) in enumerate(zip(instances, leaves, strict=True)):
        if len(leaf.point) != f.n_vars:
            raise VerificationError("test.leaf_point", f"instance {i}")
        if leaf.numerator != leaf_value(numerators(f), leaf.point):
            raise VerificationError("logup.numerator", f"instance {i}")
        if leaf.denominator != leaf_value(f.denominators, leaf.point):
            raise VerificationError("test.denominator", f"instance {i}")


def round_trip(instances, channel_cls):
    proof, leaves = prove_logup(instances, channel_cls())
    got = verify_logup([f.n_vars for f in instances], proof, channel_cls())
    assert got == leaves
    check_leaves(instances, leaves)
    n = max((f.n_vars for f in instances), default=0)
    common = next((leaf.point for leaf in leaves if len(leaf.point) == n), ())
    for leaf in leaves:  # every instance sits at a suffix of one common point
        assert leaf.point == common[n - len(leaf.point) :]
    return proof, leaves


@pytest.mark.parametrize("channel_cls", CHANNELS)
@pytest.mark.parametrize("n_vars", range(11))
@pytest.mark.parametrize("singles", [True, False])
def test_one_instance_round_trip(channel_cls, n_vars, singles):
    round_trip([random_fractions(n_vars, singles)], channel_cls)


@pytest.mark.parametrize("channel_cls", CHANNELS)
def test_mixed_sizes_round_trip(channel_cls):
    sizes = [
        (10, True),
        (10, True),
        (4, True),
        (9, False),
        (6, False),
        (0, True),
        (0, False),
        (3, False),
    ]
    round_trip([random_fractions(k, s) for k, s in sizes], channel_cls)


def test_no_instances():
    proof, leaves = round_trip([], Poseidon252Channel)
    assert proof.roots == [] and proof.layers == [] and leaves == []


def test_roots_are_the_fraction_sums():
    for n_vars, singles in [(0, True), (1, False), (5, True), (7, False)]:
        f = random_fractions(n_vars, singles)
        p_root, q_root = tree(f)[0]
        p_root = QM31.one() if p_root is None else p_root.item(0)
        q_root = q_root.item(0)
        qs, ps = f.denominators.to_list(), numerators(f).to_list()
        want_q = QM31.one()
        for q in qs:
            want_q = want_q * q
        want_sum = QM31.zero()
        for p, q in zip(ps, qs):
            want_sum = want_sum + p * q.inverse()
        assert q_root == want_q
        assert p_root * q_root.inverse() == want_sum
        proof, _ = prove_logup([f], Poseidon252Channel())
        assert proof.roots == [[p_root, q_root]]


@dataclass(frozen=True)
class GenericShare:
    """What prove_logup hands LayerShare, recorded for the generic sum-check."""

    children: tuple
    point: list
    claim: QM31
    unused: int
    lam: QM31


def generic_layer(shares, n_rounds, a, channel):
    """The layer by prove_sumcheck on the tiled products a^k·(eq·p0·q1 + eq·p1·q0 + λ·eq·q0·q1):
    the specification the kernel must meet bit for bit."""
    mles, products = [], []
    for k, share in enumerate(shares):
        ones = QM31Array.from_base(np.ones(1 << len(share.point), dtype=np.int64))
        tables = [eq_table(share.point), *(ones if t is None else t for t in share.children)]
        e, p0, p1, q0, q1 = range(len(mles), len(mles) + 5)
        mles += [QM31Array(np.tile(t.data, (1 << share.unused, 1))) for t in tables]
        w = a**k
        lam = share.lam
        products += [
            Product((e, p0, q1), w),
            Product((e, p1, q0), w),
            Product((e, q0, q1), w * lam),
        ]
    proof, point, finals = prove_sumcheck(mles, products, channel)
    return proof, point, [finals[5 * k + 1 : 5 * k + 5] for k in range(len(shares))]


@pytest.mark.parametrize("singles", [True, False])
def test_layer_kernel_is_the_generic_sumcheck(singles):
    n_rounds = 5
    a, lam = QM31Array.random(rng, 2).to_list()
    point = QM31Array.random(rng, n_rounds).to_list()
    shares = []
    for k, unused in enumerate([0, 2, 5, 0]):
        own = n_rounds - unused
        levels = tree(random_fractions(own + 1, singles and k != 3))
        r = point[unused:]
        p_up, q_up = levels[own]
        claim = leaf_value(p_up, r) + lam * leaf_value(q_up, r)  # the parent's p + λq at r
        shares.append(GenericShare(children(levels[own + 1]), r, claim, unused, lam))
    want = generic_layer(shares, n_rounds, a, Poseidon252Channel())
    kernel = [LayerShare(sh.children, sh.point, sh.claim, sh.unused, sh.lam) for sh in shares]
    assert prove_layer(kernel, n_rounds, a, Poseidon252Channel()) == want


def test_whole_proof_is_the_generic_sumcheck(monkeypatch):
    sizes = [(8, True), (8, True), (4, True), (7, False), (5, False), (2, False), (0, True)]
    instances = [random_fractions(k, s) for k, s in sizes]
    want = prove_logup(instances, Blake2sChannel())
    monkeypatch.setattr(lookups_prover, "LayerShare", GenericShare)
    monkeypatch.setattr(lookups_prover, "prove_layer", generic_layer)
    assert prove_logup(instances, Blake2sChannel()) == want


def keys(values, alpha):
    """α − v for M31 values: the denominators of a one-column lookup."""
    return QM31Array.broadcast(alpha, (len(values),)) - QM31Array.from_base(np.asarray(values))


def lookup_instances(witness_values, table_values, alpha):
    """Witness singles 1/(α − w) and table m_t/(α − t), table padded with zero multiplicities."""
    table_values = list(table_values)
    counts = [int(np.sum(np.asarray(witness_values) == t)) for t in table_values]
    pad = (1 << max(0, (len(table_values) - 1).bit_length())) - len(table_values)
    table_values += [0] * pad
    counts += [0] * pad
    witness = Fractions(None, keys(witness_values, alpha))
    table = Fractions(QM31Array.from_base(np.asarray(counts)), keys(table_values, alpha))
    return witness, table


@pytest.mark.parametrize("channel_cls", CHANNELS)
def test_lookup_relation_balances(channel_cls):
    ch = channel_cls()
    alpha = ch.draw_secure_felt()  # the caller draws α after committing the columns
    table_values = list(range(100, 150))  # 50 entries, padded to 64
    witness_values = rng.choice(table_values, 1 << 9)
    small_w, small_t = lookup_instances([7], [5, 6, 7], alpha)  # one lookup: a 0-variable witness
    instances = [*lookup_instances(witness_values, table_values, alpha), small_w, small_t]
    proof, _ = round_trip(instances, channel_cls)
    check_balance(proof, [([0], [1]), ([2], [3])])
    # the same key counted on both sides of one relation also balances
    check_balance(proof, [([0, 2], [1, 3])])


@pytest.mark.parametrize("channel_cls", CHANNELS)
def test_out_of_table_value_fails_balance(channel_cls):
    alpha = channel_cls().draw_secure_felt()
    table_values = list(range(16))
    witness_values = rng.choice(table_values, 32)
    witness, table = lookup_instances(witness_values, table_values, alpha)
    witness_values[5] = 16  # not in the table; the multiplicities stay those of the honest run
    witness = Fractions(None, keys(witness_values, alpha))
    proof, _ = round_trip([witness, table], channel_cls)
    with pytest.raises(VerificationError) as err:
        check_balance(proof, [([0], [1])])
    assert err.value.check == "logup.balance"


@pytest.mark.parametrize("channel_cls", CHANNELS)
def test_zero_denominator_fails(channel_cls):
    f = random_fractions(4, True)
    f.denominators.data[9] = 0
    g = random_fractions(2, False)
    proof, _ = prove_logup([g, f], channel_cls())
    with pytest.raises(VerificationError) as err:
        verify_logup([2, 4], proof, channel_cls())
    assert err.value.check == "logup.zero_denominator"
    with pytest.raises(VerificationError) as err:
        check_balance(proof, [([1], [0])])
    assert err.value.check == "logup.zero_denominator"


@pytest.mark.parametrize("channel_cls", CHANNELS)
def test_every_tampering_is_rejected(channel_cls):
    alpha = channel_cls().draw_secure_felt()
    witness, table = lookup_instances(rng.choice(range(8), 16), range(8), alpha)
    small_w, small_t = lookup_instances([3], [3, 4], alpha)
    instances = [witness, table, random_fractions(2, False), small_w, small_t]
    n_vars = [f.n_vars for f in instances]
    proof, _ = prove_logup(instances, channel_cls())

    def check_of(tampered):
        try:
            check_leaves(instances, verify_logup(n_vars, tampered, channel_cls()))
            check_balance(tampered, [([0], [1]), ([3], [4])])
        except VerificationError as err:
            return err.check
        return None

    assert check_of(proof) is None
    hit = {}
    for path, tampered in mutations(proof):
        check = check_of(tampered)
        assert check is not None, f"tampering {path} was accepted"
        hit.setdefault(check, path)
    # every root is absorbed before the first challenge, so a tampered root (even a 0-variable
    # instance's, which no layer reads) changes the transcript and fails a layer
    assert set(hit) == {
        "gkr.root_count",
        "gkr.layer_count",
        "gkr.round_count",
        "gkr.round_degree",
        "gkr.mask_count",
        "gkr.layer",
    }


def test_shape_checks_come_first():
    """A wrong count is reported before the transcript is touched: a bad sum-check round count
    wins over a wrong mask value in an earlier layer."""
    instances = [random_fractions(3, True)]
    proof, _ = prove_logup(instances, Poseidon252Channel())
    layers = list(proof.layers)
    layers[0] = type(layers[0])(layers[0].sumcheck, [[x + QM31.one() for x in layers[0].masks[0]]])
    last = layers[2]
    layers[2] = type(last)(type(last.sumcheck)(last.sumcheck.rounds[:-1]), last.masks)
    with pytest.raises(VerificationError) as err:
        verify_logup([3], type(proof)(proof.roots, layers), Poseidon252Channel())
    assert err.value.check == "gkr.round_count"


def test_wrong_sizes_are_rejected():
    proof, _ = prove_logup(
        [random_fractions(3, True), random_fractions(1, False)], Poseidon252Channel()
    )
    for n_vars, check in [
        ([3], "gkr.root_count"),
        ([4, 1], "gkr.layer_count"),
        ([3, 2], "gkr.mask_count"),
    ]:
        with pytest.raises(VerificationError) as err:
            verify_logup(n_vars, proof, Poseidon252Channel())
        assert err.value.check == check


def test_fractions_shape():
    with pytest.raises(ValueError):
        Fractions(None, QM31Array.random(rng, 3))
    with pytest.raises(ValueError):
        Fractions(QM31Array.random(rng, 2), QM31Array.random(rng, 4))


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.booleans()), max_size=5),
    st.integers(0, 2**32 - 1),
    st.sampled_from(CHANNELS),
)
def test_random_batches_round_trip(sizes, seed, channel_cls):
    gen = np.random.default_rng(seed)
    instances = [random_fractions(k, s, gen) for k, s in sizes]
    round_trip(instances, channel_cls)


def test_combine_is_powers():
    a, x, y, z = QM31Array.random(rng, 4).to_list()
    assert combine([x, y, z], a) == x + a * y + a * a * z


def test_proof_json_round_trip():
    """The proof is a plain tree of dataclasses, lists and QM31: the generic codec carries it."""
    proof, _ = prove_logup(
        [random_fractions(3, True), random_fractions(1, False)], Blake2sChannel()
    )
    assert decode(json.loads(json.dumps(encode(proof))), LogUpProof, "") == proof
