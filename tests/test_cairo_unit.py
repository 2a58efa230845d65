"""The Cairo verifier against the Python reference: the generated vectors are current, every
Cairo unit test passes (`cairo-test`), and the contract compiles for mainnet (audited libfuncs,
Sierra program and CASM bytecode within their limits)."""

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from cairn.deploy.build import MAX_BYTECODE, MAX_SIERRA_FELTS, build
from cairn.deploy.toolchain import default_toolchain
from tests import cairo_attn_vectors, cairo_lookup_vectors, cairo_pcs_vectors
from tests.cairo_vectors import OUTPUT, render

pytestmark = pytest.mark.cairo

PACKAGE = OUTPUT.parents[2]
RESULT = re.compile(r"^test (\S+) \.\.\. (\w+)", re.MULTILINE)


def tool(name):
    path = getattr(default_toolchain(), name)
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `cairn toolchain install`")
    return str(path)


SPLIT = ("test_contract", "walk_support", "walk_vectors")
"""cairo-test compiles a crate and all its tests at once: with every generated vector that takes
≈ 21 GB of the machine's 24 GiB, which the other tests beside it (devnets, the contract's build)
push over. So the tests are compiled and run in two halves, one after the other: `tests.cairo`'s
modules but these, then these (the walk vectors, half the generated source, and the contract's
tests, which read them) with the modules they use, `support` and `vectors` (whose cheap tests
run in both halves)."""


def halves(root: Path) -> list[Path]:
    """Two copies of the crate, each declaring one half of `tests.cairo`'s modules: its other
    sources are symlinks to the package's."""
    src = PACKAGE / "src"
    modules = re.findall(r"^mod (\w+);$", (src / "tests.cairo").read_text(), re.MULTILINE)
    parts = [[m for m in modules if m not in SPLIT], ["support", "vectors", *SPLIT]]
    projects = []
    for i, part in enumerate(parts):
        project = root / f"half{i}"
        (project / "src" / "tests").mkdir(parents=True)
        (project / "cairo_project.toml").symlink_to(PACKAGE / "cairo_project.toml")
        for entry in src.iterdir():
            if entry.name not in ("tests", "tests.cairo"):
                (project / "src" / entry.name).symlink_to(entry)
        for m in part:
            (project / "src" / "tests" / f"{m}.cairo").symlink_to(src / "tests" / f"{m}.cairo")
        (project / "src" / "tests.cairo").write_text("".join(f"mod {m};\n" for m in part))
        projects.append(project)
    return projects


@pytest.fixture(scope="module", autouse=True)
def cairo_test_output(tmp_path_factory):
    """cairo-test (minutes) starts with the module and runs beside its other tests, one half of
    the crate's tests after the other; the test that reads its output waits for it."""
    root = tmp_path_factory.mktemp("cairo-test")
    log = root / "output.txt"
    runs = " && ".join(
        f"{shlex.quote(tool('cairo_test'))} --starknet {shlex.quote(str(p))}" for p in halves(root)
    )
    with log.open("w") as sink:
        proc = subprocess.Popen(["bash", "-c", runs], stdout=sink, stderr=subprocess.STDOUT)
    try:
        yield lambda: (proc.wait(), log.read_text())
    finally:
        proc.kill()
        proc.wait()


def test_vectors_are_current():
    assert OUTPUT.read_text() == render(), "run `python -m tests.cairo_vectors`"
    pcs = cairo_pcs_vectors
    assert pcs.OUTPUT.read_text() == pcs.render(), "run `python -m tests.cairo_vectors`"
    for module, command in (
        (cairo_lookup_vectors, "cairo_lookup_vectors"),
        (cairo_attn_vectors, "cairo_attn_vectors"),
    ):
        assert module.OUTPUT.read_text() == module.render(), f"run `python -m tests.{command}`"


def test_every_cairo_test_passes(cairo_test_output):
    code, out = cairo_test_output()
    results = dict(RESULT.findall(out))
    failed = {name: status for name, status in results.items() if status != "ok"}
    assert code == 0 and not failed, out[-5000:]
    declared = sum(f.read_text().count("#[test]") for f in (PACKAGE / "src").rglob("*.cairo"))
    assert len(results) == declared
    assert len(re.findall(r"test result: ok\. \d+ passed; 0 failed", out)) == 2


def test_every_revert_reason_has_a_cairo_test():
    """Every reason the contract, the Merkle, the PCS, the LogUp-GKR, the softmax, the requant
    or the embed verifier can panic with has a Cairo test expecting exactly it."""
    sources = "".join(f.read_text() for f in (PACKAGE / "src").rglob("*.cairo"))
    expected = set(re.findall(r"#\[should_panic\(expected: \('([a-z_.]+)',", sources))
    named = {
        "calldata.version",
        "calldata.kind",
        "calldata.length",
        "calldata.marker",
        "calldata.limb",
        "calldata.sentinel",
        "calldata.truncated",
        "calldata.extra",
        "calldata.serde",
        "sumcheck.round_count",
        "sumcheck.round_degree",
        "matmul.final_evaluation",
        "statement.range",
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
        "statement.binding",
        "session.owner",
        "session.unknown",
        "session.state",
        "session.empty",
        "logup.numerator",
        "softmax.columns",
        "softmax.mask",
        "requant.params",
        "requant.columns",
        "requant.commitment",
        "embed.ids",
        "embed.value_count",
        "embed.final_evaluation",
        "graph.shape",
        "graph.claims",
        "graph.params",
        "statement.kind",
        "calldata.offchain",
    }
    assert expected >= named | cairo_lookup_vectors.KNOWN_CHECKS


def test_contract_uses_the_blake2s_builtin():
    """The pinned compiler (Cairo 2.17) emits Sierra 1.8.0, the first version whose audited
    libfunc list admits `core::blake`, and the contract's Blake2s trees use the builtin
    (docs/cairo-verifier.md, "Blake2s"). A class's first felts are its Sierra version, then
    the compiler's; generic libfunc names are short strings in the program."""
    art = build(default_toolchain().require())
    program = [int(x, 16) for x in json.loads(art.sierra.read_text())["sierra_program"]]
    assert tuple(program[:3]) >= (1, 8, 0)
    names = {felt.to_bytes(32, "big").lstrip(b"\0") for felt in program}
    assert {b"blake2s_compress", b"blake2s_finalize"} <= names


def test_contract_compiles_for_mainnet():
    """The deploy build (audited libfuncs, --max-bytecode-size) of the five classes stays within
    mainnet's limits."""
    art = build(default_toolchain().require())
    for cls in (art, *art.helpers().values()):
        assert cls.sierra_length < MAX_SIERRA_FELTS
        assert cls.bytecode_length < MAX_BYTECODE
