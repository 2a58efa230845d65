"""The Cairo verifier against the Python reference: the generated vectors are current, every
Cairo unit test passes (`cairo-test`), and the contract compiles for mainnet (audited libfuncs,
Sierra program and CASM bytecode within their limits)."""

import json
import re
import subprocess

import pytest

from cairn.deploy.build import MAX_BYTECODE, MAX_SIERRA_FELTS, build
from cairn.deploy.toolchain import default_toolchain
from tests import cairo_pcs_vectors
from tests.cairo_vectors import OUTPUT, render

pytestmark = pytest.mark.cairo

PACKAGE = OUTPUT.parents[2]
RESULT = re.compile(r"^test (\S+) \.\.\. (\w+)", re.MULTILINE)


def tool(name):
    path = getattr(default_toolchain(), name)
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `cairn toolchain install`")
    return str(path)


@pytest.fixture(scope="module")
def cairo_test_output():
    proc = subprocess.run(
        [tool("cairo_test"), "--starknet", str(PACKAGE)], capture_output=True, text=True
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_vectors_are_current():
    assert OUTPUT.read_text() == render(), "run `python -m tests.cairo_vectors`"
    pcs = cairo_pcs_vectors
    assert pcs.OUTPUT.read_text() == pcs.render(), "run `python -m tests.cairo_vectors`"


def test_every_cairo_test_passes(cairo_test_output):
    code, out = cairo_test_output
    results = dict(RESULT.findall(out))
    failed = {name: status for name, status in results.items() if status != "ok"}
    assert code == 0 and not failed, out[-5000:]
    declared = sum(f.read_text().count("#[test]") for f in (PACKAGE / "src").rglob("*.cairo"))
    assert len(results) == declared
    assert re.search(rf"test result: ok\. {declared} passed; 0 failed", out)


def test_every_revert_reason_has_a_cairo_test():
    """Every reason the contract, the Merkle or the PCS verifier can panic with has a Cairo
    test expecting exactly it."""
    sources = "".join(f.read_text() for f in (PACKAGE / "src").rglob("*.cairo"))
    expected = set(re.findall(r"#\[should_panic\(expected: \('([a-z_.]+)',", sources))
    assert expected >= {
        "calldata.version",
        "calldata.kind",
        "calldata.dims",
        "calldata.length",
        "calldata.marker",
        "calldata.limb",
        "calldata.sentinel",
        "calldata.truncated",
        "calldata.extra",
        "sumcheck.round_count",
        "sumcheck.round_degree",
        "matmul.final_evaluation",
        "registry.not_owner",
        "registry.exists",
        "registry.model_id_zero",
        "registry.no_commitments",
        "registry.unknown_model",
        "registry.unknown_proof",
        "merkle.indices",
        "merkle.leaf_count",
        "merkle.leaf_width",
        "merkle.value",
        "merkle.sibling_count",
        "merkle.digest",
        "merkle.path",
        "pcs.statement",
        "pcs.hash",
        "pcs.size",
        "pcs.claim_shape",
        "pcs.round_count",
        "pcs.merge_count",
        "pcs.layer_count",
        "pcs.merge",
        "pcs.claim",
        "pcs.pow",
        "pcs.query_count",
        "pcs.fold",
        "pcs.final_layer",
        "registry.weight",
        "registry.commitment",
        "registry.config",
        "session.owner",
        "session.unknown",
        "session.state",
        "session.empty",
    }


BLAKE_PROBE = """
#[starknet::contract]
mod BlakeProbe {
    #[storage]
    struct Storage {}

    #[external(v0)]
    fn hash(self: @ContractState, word: u32) -> [u32; 8] {
        let state = BoxTrait::new([0, 0, 0, 0, 0, 0, 0, 0]);
        let msg = BoxTrait::new([word, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        core::blake::blake2s_finalize(state, 4, msg).unbox()
    }
}
"""


def test_core_blake_is_refused_by_the_pinned_compiler(tmp_path):
    """Why verifier_cairo/src/blake2s.cairo is plain Cairo (docs/cairo-verifier.md, "Blake2s").
    If this fails, the pinned compiler emits Sierra >= 1.8.0: switch to `core::blake`."""
    source = tmp_path / "probe.cairo"
    source.write_text(BLAKE_PROBE)
    cmd = [tool("starknet_compile"), "--single-file", str(source), str(tmp_path / "out.json")]
    proc = subprocess.run(
        [*cmd, "--allowed-libfuncs-list-name", "audited"], capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "Libfunc blake2s_finalize requires version 1.8.0 while class version is 1.7.0" in (
        proc.stderr + proc.stdout
    )
    allowed_all = subprocess.run([*cmd, "--allowed-libfuncs-list-name", "all"])
    assert allowed_all.returncode == 0


def test_contract_compiles_for_mainnet():
    """The deploy build (audited libfuncs, --max-bytecode-size) stays within mainnet's limits."""
    art = build(default_toolchain().require())
    assert art.sierra_length < MAX_SIERRA_FELTS
    assert len(json.loads(art.casm.read_text())["bytecode"]) < MAX_BYTECODE
