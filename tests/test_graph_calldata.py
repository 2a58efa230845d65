"""Graph proofs as calldata, kind 5 (serializer/graph_calldata.py): the Serde-order encoding
round trips to a proof the verifier accepts, sessions rebuild its state, and every check of the
reader fires with its name, in the order the Cairo reader panics."""

import dataclasses
import functools
import json

import pytest
from typer.testing import CliRunner

from cairn import examples
from cairn.cli import app
from cairn.deploy.registry import contract_check, io_hash
from cairn.deploy.sessions import session_state
from cairn.prover.channels.poseidon import STARK_PRIME, hash_many
from cairn.prover.errors import VerificationError
from cairn.prover.graph.proof import GraphProof
from cairn.prover.graph.prover import commit_graph_weights, prove_graph
from cairn.prover.graph.verifier import replay_graph, verify_graph
from cairn.prover.pcs.params import POSEIDON_PARAMS
from cairn.serializer import calldata
from cairn.serializer.errors import MalformedProofError
from cairn.serializer.graph_calldata import (
    GRAPH_KINDS,
    GraphReader,
    decode_graph,
    encode_graph,
    io_felts,
    is_graph,
    witness_commitments,
)
from cairn.serializer.header import KIND_GRAPH, KIND_WALK, VERSION
from cairn.serializer.serde import short_string
from cairn.serializer.walk_calldata import ONCHAIN_KINDS
from tests.cairo_graph_vectors import OUTPUT as GRAPH_VECTORS
from tests.cairo_graph_vectors import raw_felts, render
from tests.walk_examples import example

runner = CliRunner()


@functools.cache
def block(committed: bool = True) -> GraphProof:
    """x → qkv → requant ×3 → attn (5 tokens, 2 heads of 3), weights committed (Poseidon) or
    public."""
    g, hidden = examples.attention_block_example(5, 7, 2, 3, False, 0)
    data = None
    if committed:
        g, data = commit_graph_weights(g, POSEIDON_PARAMS)
    return prove_graph(g, hidden, data)


def _serde(proof: GraphProof, kinds: list[str] | None = None) -> list[int]:
    """The calldata up to its trees as the encoder writes it, without its refusals; each
    node's variant is its kind in `kinds` (default: the statement's)."""
    return raw_felts(proof, [], kinds or [node.kind for node in proof.statement.nodes])


def _statement_read(felts: list[int]) -> None:
    GraphReader.open(felts)


def _refused(felts: list[int], read=decode_graph) -> str:
    with pytest.raises(MalformedProofError) as e:
        read(felts)
    return e.value.check


def _at(felts: list[int], value: int, index: int) -> list[int]:
    return [*felts[:index], value, *felts[index + 1 :]]


def test_round_trip_and_python_accepts():
    proof = block()
    felts = encode_graph(proof)
    assert felts[:2] == [VERSION, KIND_GRAPH] and is_graph(felts)
    assert all(0 <= f < STARK_PRIME for f in felts)
    back = decode_graph(felts)
    verify_graph(back)
    assert encode_graph(back) == felts
    assert calldata.encode(calldata.decode(felts)) == felts == calldata.encode(proof)
    assert contract_check(felts, {}) is None


def test_io_hash_covers_the_statement_only():
    felts = encode_graph(block())
    io = io_felts(felts)
    assert felts[2 : 2 + len(io)] == io == calldata.io_felts(felts)
    assert io_hash(felts) == hash_many(io)
    parts = calldata.encode_parts(block())
    assert parts.front == [*felts[: 2 + len(io)], 0]  # no committed output; the nodes follow
    n = len(block().nodes)
    assert parts.walk[:n] == [[i] for i in range(n)]  # a check part per node, then its proof
    # then the settlement, the witness opening's front, and its steps: each polynomial's index,
    # absorbed, then reduced
    j = parts.witness
    assert j == len(witness_commitments(block().statement)) > 0
    assert parts.walk[2 * n + 2 :] == [[k] for k in range(j)] * 2
    last = 2 * n + 2 + 2 * j
    at = (0, n - 1, n, 2 * n - 1, 2 * n, 2 * n + 1, 2 * n + 2, last - 1, last)
    total = len(parts.steps)
    assert [parts.describe(i) for i in at] == [
        f"part 1 of {total} (node 0's statement check)",
        f"part {n} of {total} (node {n - 1}'s statement check)",
        f"part {n + 1} of {total} (node {n - 1})",  # the last node first
        f"part {2 * n} of {total} (node 0)",
        f"part {2 * n + 1} of {total} (the model walk's settlement)",
        f"part {2 * n + 2} of {total} (the model walk's witness opening's front)",
        f"part {2 * n + 3} of {total} (the witness opening's polynomial 0 absorbed)",
        f"part {last} of {total} (the witness opening's polynomial {j - 1} reduced)",
        f"part {last + 1} of {total} (tree 1 of {len(parts.trees)} of the openings)",
    ]


def test_witness_polys_are_the_verifiers_batch():
    """Every node's witness (nodes in order, names in order), then the tables by name: the
    order of the witness opening the verifier replays."""
    proof = block()
    _, _, witness = replay_graph(proof)
    assert [c for c, _ in witness] == witness_commitments(proof.statement)
    own = [n for node in proof.statement.nodes for n in sorted(node.witness)]
    assert len(witness) == len(own) + 1  # attn's exp table


def test_each_opening_is_due_with_the_part_that_carries_it():
    """The committed tensors' opening with the settlement (`replay_graph`), the witness
    opening with its own part, after the committed one's front."""
    proof = block()
    with pytest.raises(VerificationError) as e:
        replay_graph(dataclasses.replace(proof, opening=None))
    assert e.value.check == "walk.opening"
    no_witness = dataclasses.replace(proof, witness_opening=None)
    replay_graph(no_witness)
    with pytest.raises(VerificationError) as e:
        verify_graph(no_witness)
    assert e.value.check == "walk.witness_opening"


def test_a_session_covering_every_part_is_over():
    parts = calldata.encode_parts(block())
    assert parts.trees and session_state(parts, [len(parts.steps)]) is None
    state = session_state(parts, [1])
    assert state is not None and state[:2] == [KIND_GRAPH, 0]  # kind 5, no model


def test_a_session_carries_the_walk_until_it_settles():
    """Between parts the state ends with the walk, the nodes left first (all of them while
    their statements are checked, one fewer per node verified; the checks and the claims the
    verified nodes left are kept out of the state: relayed beside it, or stored when the session
    is opened `staged`), then the statement (an empty span if `staged`), and last whether it
    is; once the settlement is read the
    committed tensors' opening's phase stands before a settled walk (no node, no claims: the
    channel alone) and the statement; once the witness opening's front is
    read the walk is empty and that front's stage follows it, polynomial by polynomial (what
    it absorbed, then reduced); after its last step both openings' phases stand before an
    empty walk and an empty stage."""
    parts = calldata.encode_parts(block())
    n, j = len(block().nodes), parts.witness
    for sent in range(2 * n + 1):
        state = session_state(parts, [sent])
        assert state is not None and state[4] == 0  # no phase yet
        assert state[6] == n - max(0, sent - n)
    statement = calldata.io_felts(parts.flat)
    for staged, carried in ((False, statement), (True, [])):
        half = session_state(parts, [2 * n + 1], staged)
        assert half is not None and half[4] == 1
        # the walk: left 0, the channel, no claims, settled; the statement; no stage; no
        # certified; staged
        tail = [len(carried), *carried, 0, 0, int(staged)]
        walk = half[: -len(tail)]
        assert half[-len(tail) :] == tail and walk[-7:-5] == [6, 0] and walk[-3:] == [0, 0, 1]
    stages = []
    for steps in range(2 * j):
        state = session_state(parts, [2 * n + 2 + steps])
        # no certified, unstaged
        assert state is not None and state[4] == 1 and state[-2:] == [0, 0]
        stages.append(tuple(state))
    assert len(set(stages)) == 2 * j  # every step moves the stage on
    done = session_state(parts, [len(parts.walk)])
    assert done is not None and done[4] == 2 and done[-4:] == [0, 0, 0, 0]


def test_a_session_refuses_a_missing_witness_opening_with_its_part():
    """The settlement is accepted alone; the part after it, the witness opening's, is refused
    where claims are due and none is sent, as the contract reverts that transaction."""
    parts = calldata.encode_parts(dataclasses.replace(block(), witness_opening=None))
    assert session_state(parts, [len(parts.walk) - 1]) is not None
    with pytest.raises(VerificationError) as e:
        session_state(parts, [len(parts.walk)])
    assert e.value.check == "walk.witness_opening"


def test_a_session_refuses_a_tampered_node_when_it_reaches_it():
    """The second node walked (the last requant) with its last felt changed: the transactions
    before it, which check the statements and the last node, are accepted; the next is
    refused. A check part naming another node is refused when it is read."""
    parts = calldata.encode_parts(block())
    n = len(block().nodes)
    felts = list(parts.walk[n + 1])
    felts[-1] = (felts[-1] + 1) % STARK_PRIME
    walk = [*parts.walk[: n + 1], felts, *parts.walk[n + 2 :]]
    tampered = dataclasses.replace(parts, walk=walk)
    assert session_state(tampered, [n, 1]) is not None
    with pytest.raises((VerificationError, MalformedProofError)):
        session_state(tampered, [n, 1, 1])
    swapped = [parts.walk[1], parts.walk[0], *parts.walk[2:]]
    tampered = dataclasses.replace(parts, walk=swapped)
    with pytest.raises(MalformedProofError) as e:
        session_state(tampered, [1])
    assert e.value.check == "calldata.check"


def test_a_session_refuses_a_witness_step_out_of_order():
    """The witness opening's step parts name its polynomials in order, absorbed then reduced:
    one naming another is refused when it is read (`calldata.witness`), by the reader and in
    a session, whose steps before it are accepted."""
    parts = calldata.encode_parts(block())
    at = parts.walked + parts.witness  # the first polynomial reduced
    walk = list(parts.walk)
    walk[at] = [walk[at][0] + 1]
    tampered = dataclasses.replace(parts, walk=walk)
    assert _refused(tampered.flat) == "calldata.witness"
    assert session_state(tampered, [at]) is not None
    with pytest.raises(MalformedProofError) as e:
        session_state(tampered, [at, 1])
    assert e.value.check == "calldata.witness"


def test_header_trailing_and_truncation():
    felts = encode_graph(block())
    assert _refused(_at(felts, 2, 0)) == "calldata.version"
    assert _refused(_at(felts, KIND_WALK, 1)) == "calldata.kind"
    assert _refused([*felts, 0]) == "calldata.extra"
    assert _refused(felts[:-1]) == "calldata.truncated"


@pytest.mark.parametrize(
    ("kind", "check"),
    [("attn", "statement.kind"), ("add", "calldata.offchain"), ("requanx", "calldata.offchain")],
)
def test_a_node_renamed_is_not_its_variants_kind(kind, check):
    """The statement is read before the nodes' parts: a kind without advice under requant's
    witness, or no graph kind at all, is refused there; another kind when its part is read."""
    felts = encode_graph(block())
    at = felts.index(short_string("requant"))  # node 1's kind; its variant stays requant
    assert _refused(_at(felts, short_string(kind), at)) == check


def test_a_kind_not_verified_in_graphs_is_offchain():
    """A node of mha (read on chain in layer proofs only), under mha's variant."""
    proof = block()
    assert "mha" in ONCHAIN_KINDS and "mha" not in GRAPH_KINDS
    g = proof.statement
    nodes = (*g.nodes[:4], dataclasses.replace(g.nodes[4], kind="mha"))
    node = dataclasses.replace(proof.nodes[4], layer=example("mha").layer)
    tampered = dataclasses.replace(
        proof,
        statement=dataclasses.replace(g, nodes=nodes),
        nodes=[*proof.nodes[:4], node],
    )
    assert _refused(_serde(tampered), _statement_read) == "calldata.offchain"


def test_a_witness_on_a_kind_without_advice_is_offchain():
    proof = block()
    g = proof.statement
    witness = dict(g.nodes[4].witness)  # attn's
    nodes = (dataclasses.replace(g.nodes[0], witness=witness), *g.nodes[1:])  # on qkv
    tampered = dataclasses.replace(proof, statement=dataclasses.replace(g, nodes=nodes))
    assert _refused(_serde(tampered), _statement_read) == "calldata.offchain"


def test_public_weights_are_refused_by_both_sides():
    public = block(committed=False)
    assert public.statement.weights and not public.statement.committed
    with pytest.raises(ValueError, match="public weights"):
        encode_graph(public)
    assert _refused(_serde(public), _statement_read) == "calldata.offchain"


def test_committed_weights_need_one_known_hash_digest_roots_and_sizes():
    felts = encode_graph(block())
    # Commitment: root (u256: low, high), n_vars, hash; the first Poseidon one is a weight's
    # (the nodes' witness commitments are Blake2s).
    at = felts.index(short_string("poseidon"))
    assert _refused(_at(felts, short_string("sha256"), at)) == "pcs.hash"
    assert _refused(_at(felts, (1 << 128) - 1, at - 2)) == "merkle.digest"  # ≥ p: no felt
    assert _refused(_at(felts, POSEIDON_PARAMS.max_n_vars + 1, at - 1)) == "pcs.size"


def test_the_cli_writes_a_committed_graphs_calldata_and_refuses_public_weights(tmp_path):
    args = ["--seq", "3", "--embed", "5", "--heads", "2", "--head-dim", "2"]
    for commit, path in ((["--commit-weights", "poseidon"], "c.json"), ([], "p.json")):
        out = str(tmp_path / path)
        result = runner.invoke(app, ["prove", "qkv-attn", *args, *commit, "--out", out])
        assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["calldata", str(tmp_path / "c.json")])
    assert result.exit_code == 0, result.output
    felts = [int(f, 16) for f in json.loads(result.stdout)]
    assert is_graph(felts) and contract_check(felts, {}) is None
    result = runner.invoke(app, ["calldata", str(tmp_path / "p.json")])
    assert result.exit_code == 2 and "public weights" in result.output
    register = ["register-model", "0x9", "--proof", str(tmp_path / "p.json")]
    result = runner.invoke(app, [*register, "--rpc", "http://127.0.0.1:1"])
    assert result.exit_code == 2 and "no committed weights" in result.output, result.output


def test_generated_graph_vectors_are_current():
    assert GRAPH_VECTORS.read_text() == render(), "run `python -m tests.cairo_graph_vectors`"
