"""The Cairo verifier against the Python reference: the generated vectors are current, every
Cairo unit test passes (`cairo-test`), and the contract compiles for mainnet (audited libfuncs,
Sierra program and CASM bytecode within their limits)."""

import json
import re
import subprocess

import pytest

from cairn.deploy.build import MAX_BYTECODE, MAX_SIERRA_FELTS, build
from cairn.deploy.toolchain import default_toolchain
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


def test_every_cairo_test_passes(cairo_test_output):
    code, out = cairo_test_output
    results = dict(RESULT.findall(out))
    failed = {name: status for name, status in results.items() if status != "ok"}
    assert code == 0 and not failed, out[-5000:]
    declared = sum(f.read_text().count("#[test]") for f in (PACKAGE / "src").rglob("*.cairo"))
    assert len(results) == declared
    assert re.search(rf"test result: ok\. {declared} passed; 0 failed", out)


def test_every_revert_reason_has_a_cairo_test():
    """Every reason the contract can revert with has a Cairo test expecting exactly it."""
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
    }


def test_contract_compiles_for_mainnet():
    """The deploy build (audited libfuncs, --max-bytecode-size) stays within mainnet's limits."""
    art = build(default_toolchain().require())
    assert art.sierra_length < MAX_SIERRA_FELTS
    assert len(json.loads(art.casm.read_text())["bytecode"]) < MAX_BYTECODE
