"""Model walks on a real devnet (docs/model-walk.md, "On chain"): the graphs of
tests/graph_examples.py accepted by both verifiers with the same record, tampered ones
rejected by both with the same named check, a bound that travels through the graph refused
alike, a walk over one transaction's L2 gas verified in a session cut between its nodes, and
`cairn verify-onchain` on graph proof files."""

import dataclasses
import json
from itertools import accumulate, pairwise

import pytest
from starknet_py.hash.selector import get_selector_from_name
from typer.testing import CliRunner

from cairn import examples
from cairn.cli import app
from cairn.deploy import contract, registry
from cairn.deploy.certified import declared_keys
from cairn.prover.walk.statement import NO_MODEL
from cairn.serializer import calldata, proof_file
from cairn.serializer.header import KIND_GRAPH
from tests.cairo_graph_vectors import tampered
from tests.graph_examples import GRAPHS, graph_certificates, graph_proof
from tests.test_devnet_walk import onchain_like, registered_then_recorded, sendable

pytestmark = pytest.mark.devnet
runner = CliRunner()
GAS = 2 * 10**8
"""L2 gas planned per transaction in the cut-between-nodes tests: less than the attention
block's walk needs in one."""
KEPT = get_selector_from_name("SessionKept")


@pytest.mark.parametrize(
    "name",
    [*(n for n in GRAPHS if "declared" not in n), "attention_io", "attention_poseidon"],
)
def test_honest_graphs_accepted_by_both(chain, name):
    """The attention block's walk (five nodes, four LogUp-GKRs) fits its first transaction
    (7.3·10^8 L2 gas), its openings take three more; with its input and output committed,
    its statement is roots (and the output's value goes first in the walk); with its witness
    on Poseidon252 trees, the session's witness front carries that hash."""
    parts = calldata.encode_parts(graph_proof(name))
    felts = parts.flat
    assert registry.contract_check(felts, {}) is None
    verdict = onchain_like(chain, felts, parts)
    assert verdict.accepted, verdict.reason
    assert verdict.io_hash == registry.io_hash(felts)
    record = chain.run(registry.get_proof(chain.accounts[1], chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(NO_MODEL, verdict.io_hash, KIND_GRAPH)


@pytest.mark.parametrize("name", ["encoder", "encoder_io", "ffn", "norm"])
def test_tampered_graphs_rejected_alike(chain, name):
    """A sample of the generated Cairo tests' tamperings of the encoder graph, with its input
    and output public or committed (all of them run in cairo-test), and of the FFN and
    LayerNorm graphs' fronts (their lookup nodes among them; their openings go in sessions),
    through real transactions."""
    proof = graph_proof(name)
    parts = calldata.encode_parts(proof)
    tamperings = sendable(list(tampered(proof)), parts)
    fits = len(parts.flat) + contract.INVOKE_OVERHEAD_FELTS <= contract.MAX_CALLDATA_FELTS
    samples = 8 if fits else 4  # in a session each sample sends its openings too
    for doc, felts in tamperings[:: max(1, len(tamperings) // samples)]:
        check = registry.contract_check(felts, {})
        verdict = onchain_like(chain, felts, parts)
        assert verdict.accepted == (check is None), doc
        assert verdict.reason == check, (doc, check, verdict.reason)


def test_declared_weights_need_their_certificates_on_chain(chain, tmp_path):
    """A model walk reading its weights at declared ranges (every relation then holds over the
    integers: a gather, a projection of its output, a LayerNorm and a projection of its
    row-normed output), in a file carrying its certificates: `cairn verify-onchain` is refused
    (`graph.declared`) until `cairn register-model --proof` has verified the range walks over
    the same commitments (a session: over one transaction's gas); then accepted, by both
    verifiers."""
    proof = graph_proof("declared_norm")
    path = tmp_path / "declared.json"
    proof_file.save(proof, path, certificates=graph_certificates("declared_norm"))
    felts, keys = calldata.encode(proof), declared_keys(proof.statement)
    assert registry.contract_check(felts, {}) == "graph.declared"
    url, address = chain.url, hex(chain.address)
    verify = ["verify-onchain", str(path), "--rpc", url, "--address", address]
    result = runner.invoke(app, verify)
    assert result.exit_code == 1 and "graph.declared" in result.output, result.output
    assert "register-model" in result.output
    register = ["register-model", "0x9d", "--proof", str(path), "--rpc", url, "--address", address]
    result = runner.invoke(app, register)
    assert result.exit_code == 0, result.output
    assert f"certificate 1/1: {len(keys)} declared ranges certified" in result.output
    assert registry.contract_check(felts, {}, keys) is None
    result = runner.invoke(app, verify)
    assert result.exit_code == 0 and "accepted on chain" in result.output, result.output


def test_a_bound_too_wide_for_attention_is_refused_alike(chain):
    """q's requantization declares 9 output bits (and k one less, b + k ≤ 30): its clamp bounds
    q8 by 255, attn needs int8 (`statement.range` from the bound alone, q8 being hidden)."""
    honest_proof = graph_proof("attention")
    honest = calldata.encode_parts(honest_proof)
    g = honest_proof.statement
    node = g.nodes[1]
    dims = (*node.dims[:3], node.dims[3] - 1, 9, *node.dims[5:])
    nodes = (g.nodes[0], dataclasses.replace(node, dims=dims), *g.nodes[2:])
    proof = dataclasses.replace(honest_proof, statement=dataclasses.replace(g, nodes=nodes))
    felts = calldata.encode(proof)
    assert registry.contract_check(felts, {}) == "statement.range"
    verdict = onchain_like(chain, felts, honest)
    assert not verdict.accepted and verdict.reason == "statement.range"


@pytest.mark.parametrize("staged", [True, False])
def test_a_walk_over_one_transaction_is_cut_between_nodes(chain, staged):
    """With less L2 gas planned per transaction than the attention block's walk needs at once,
    the session verifies its nodes over several transactions, each carrying the
    walk's state to the next, and either the statement staged (as one over 1,000 felts would
    be) after the first and the nodes' checks and claims stored, or the statement carried and
    those relayed: each transaction's `SessionKept` events (within an event's 300 data felts)
    sent back by the next. The proof is recorded as in one."""
    parts = calldata.encode_parts(graph_proof("attention"))
    carried = 0 if staged else contract.CARRIED_STATEMENT_FELTS
    sent = [0]  # the parts sent before each transaction of the session, and after the last
    verifying = contract.verify_parts(
        chain.account,
        chain.address,
        parts,
        max_gas=GAS,
        progress=lambda done, _txs: sent.append(done),
        carried=carried,
    )
    verdict = chain.run(verifying)
    assert verdict.accepted, verdict.reason
    nodes = parts.walked - 2  # each node's check and proof, before the settlement and front
    walking = [start for start in sent[:-1] if start < nodes]
    assert len(walking) >= 2, (sent, [t.l2_gas for t in verdict.transactions])
    kept = []
    for tx in verdict.transactions:
        receipt = chain.run(chain.account.client.get_transaction_receipt(tx.tx_hash))
        events = [e for e in receipt.events if e.from_address == chain.address]
        kept.append([len(e.data) for e in events if e.keys[0] == KEPT])
    assert all(n <= 300 for k in kept for n in k)
    assert not any(kept) if staged else any(kept), kept
    record = chain.run(registry.get_proof(chain.accounts[1], chain.address, verdict.proof_hash))
    assert record == registry.ProofRecord(NO_MODEL, verdict.io_hash, KIND_GRAPH)


def test_a_node_tampered_after_a_cut_is_refused_alike(chain):
    """A tampering of a node the walk reaches after its first transaction (which carries the
    statement, every node's check and the first two nodes walked, attn and a requant): that
    transaction is accepted, the session's next is refused with the check `verify` names."""
    proof = graph_proof("attention")
    parts = calldata.encode_parts(proof)
    late = len(parts.front) + sum(map(len, parts.walk[: len(proof.statement.nodes) + 2]))
    same = [t for _, t in tampered(proof) if len(t) == len(parts.flat)]
    felts = next(t for t in same if t[:late] == parts.flat[:late] and t[late:] != parts.flat[late:])
    check = registry.contract_check(felts, {})
    assert check is not None
    steps = [felts[a:b] for a, b in _cuts(parts)]
    bad = dataclasses.replace(
        parts,
        front=felts[: len(parts.front)],
        trees=steps[len(parts.walk) :],
        walk=steps[: len(parts.walk)],
    )
    first = late + contract.OPEN_OVERHEAD_FELTS
    verifying = contract.verify_parts(chain.account, chain.address, bad, max_felts=first)
    verdict = chain.run(verifying)
    assert not verdict.accepted and verdict.reason == check
    # the first, accepted (its state carries the statement); the refused one is not sent
    assert len(verdict.transactions) == 1


def _cuts(parts: calldata.CalldataParts) -> list[tuple[int, int]]:
    ends = list(accumulate([len(parts.front), *map(len, parts.steps)]))
    return list(pairwise(ends))


def test_a_node_over_one_transaction_is_refused_clearly(chain):
    """Sessions cut between parts: a node whose verification alone exceeds the L2 gas planned
    per transaction is refused before it is sent, saying why."""
    parts = calldata.encode_parts(graph_proof("attention"))
    verifying = contract.verify_parts(chain.account, chain.address, parts, max_gas=10**8)
    with pytest.raises(contract.ChainError, match=r"needs [\d,]+ L2 gas.* than the 100,000,000"):
        chain.run(verifying)


def test_cli_verify_onchain(chain, tmp_path, monkeypatch):
    """A graph proof file through `cairn verify-onchain`: accepted; a tampered one rejected
    with `cairn verify`'s check; the qkv-attn block (`cairn prove qkv-attn --commit-weights`)
    accepted in a session."""
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    url = chain.url
    assert runner.invoke(app, ["deploy", "--rpc", url]).exit_code == 0
    good = tmp_path / "encoder.json"
    proof = graph_proof("encoder")
    proof_file.save(proof, good)
    result = runner.invoke(app, ["verify-onchain", str(good), "--rpc", url])
    assert result.exit_code == 0, result.output
    assert "accepted on chain" in result.output
    add = proof.nodes[2]  # the residual add: its split of y's claim moved
    layer = dataclasses.replace(add.layer, a_value=add.layer.a_value + add.layer.a_value)
    nodes = [*proof.nodes[:2], dataclasses.replace(add, layer=layer), *proof.nodes[3:]]
    bad = tmp_path / "bad.json"
    proof_file.save(dataclasses.replace(proof, nodes=nodes), bad)
    offchain = runner.invoke(app, ["verify", str(bad)])
    result = runner.invoke(app, ["verify-onchain", str(bad), "--rpc", url])
    assert offchain.exit_code == 1 and result.exit_code == 1, result.output
    check = registry.contract_check(calldata.encode(proof_file.load(bad)), {})
    assert check in offchain.output and check in result.output, (check, result.output)
    block = tmp_path / "block.json"
    args = ["prove", "qkv-attn", "--seq", "5", "--embed", "7", "--heads", "2", "--head-dim", "3"]
    for io in ([], ["--commit-io", "poseidon"]):  # x and o public, then committed
        hashes = ["--commit-weights", "poseidon", *io]
        result = runner.invoke(app, [*args, *hashes, "--out", str(block)])
        assert result.exit_code == 0, result.output
        result = runner.invoke(app, ["verify-onchain", str(block), "--rpc", url])
        assert result.exit_code == 0, result.output
        assert "accepted on chain" in result.output


def test_cli_bind_register_and_verify(chain, tmp_path, monkeypatch):
    """`cairn prove qkv-attn --commit-weights --commit-io --model-id` → `cairn register-model
    --proof` (its six weights, not x or o) → `cairn verify-onchain`: refused while the model is
    unknown, then recorded with the model."""
    monkeypatch.setenv("CAIRN_STATE_DIR", str(tmp_path / "state"))
    path = tmp_path / "block.json"
    args = ["prove", "qkv-attn", "--seq", "5", "--embed", "7", "--heads", "2", "--head-dim", "3"]
    args += ["--commit-weights", "poseidon", "--commit-io", "poseidon", "--model-id", "0x98"]
    result = runner.invoke(app, [*args, "--out", str(path)])
    assert result.exit_code == 0 and "bound to model 0x98" in result.output, result.output
    registered_then_recorded(chain, path, "0x98", 6)


def test_bench_graphs_commit_io(tmp_path, monkeypatch):
    """`cairn bench graphs --commit-io` on its own devnet, cut to the encoder graph: its
    input and output committed, accepted, measured."""
    encoder = dict(list(examples.GRAPH_BENCHMARKS.items())[:1])
    monkeypatch.setattr(examples, "GRAPH_BENCHMARKS", encoder)
    monkeypatch.setattr(examples, "COMMITTED_IO_GRAPH_BENCHMARKS", {})
    out = tmp_path / "graphs.json"
    result = runner.invoke(app, ["bench", "graphs", "--commit-io", "poseidon", "--out", str(out)])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(out.read_text())["results"]
    assert row["io"] == "poseidon" and row["within_cap"] and row["l2_gas"] > 0


def test_a_tiny_minilm_from_text_verified_on_chain(chain, tiny_import, tmp_path):
    """The whole encoder of the tiny model (tests/tiny_minilm.py; 20 nodes: embeddings,
    LayerNorms, attention with softmax, GELU, residuals, requantizations, pooling) from text,
    every weight committed and declared, through the CLI: `cairn prove model minilm
    --commit-weights poseidon --model-id`, `cairn register-model --proof` (its 20 weights, then
    its two certificates, of 16 and 4 weights), `cairn verify-onchain` (a session cut between
    nodes, each transaction within 8·10^8 L2 gas): accepted and recorded with the model."""
    path = tmp_path / "tiny.json"
    prove = ["prove", "model", "minilm", "--text", "A man is eating food.", "--model-file",
             str(tiny_import), "--commit-weights", "poseidon", "--model-id", "0x9e"]  # fmt: skip
    result = runner.invoke(app, [*prove, "--out", str(path)])
    assert result.exit_code == 0, result.output
    url, address = chain.url, hex(chain.address)
    register = ["register-model", "0x9e", "--proof", str(path), "--rpc", url, "--address", address]
    result = runner.invoke(app, register)
    assert result.exit_code == 0 and "20 commitment(s)" in result.output, result.output
    for i, n in enumerate((16, 4), 1):
        assert f"certificate {i}/2: {n} declared ranges certified" in result.output
    result = runner.invoke(app, ["verify-onchain", str(path), "--rpc", url, "--address", address])
    assert result.exit_code == 0, result.output
    assert f"ProofVerified(model_id={0x9E}, " in result.output
