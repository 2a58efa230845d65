"""One devnet with CairnVerifier deployed, shared by every devnet test module (starting a
devnet and declaring the contract costs ≈10 s; the modules use distinct model ids), and the
tiny MiniLM imported."""

import pytest

from cairn.models.minilm import model_file, walk
from tests.devnet_chain import deployed_chain
from tests.tiny_minilm import write_tiny_folder


@pytest.fixture(scope="session")
def chain(tmp_path_factory):
    with deployed_chain(tmp_path_factory.mktemp("devnet")) as chain:
        yield chain


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """tests/tiny_minilm.py's model folder."""
    return write_tiny_folder(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def tiny_import(tiny_folder, tmp_path_factory):
    """The tiny model imported for real; the CLI reads it with the tiny folder in the package's
    place."""
    path, _ = model_file.import_model(tmp_path_factory.mktemp("tiny_import"), tiny_folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "load_imported", lambda p: model_file.load(p, tiny_folder))
        yield path


SLOW_MODULES = (
    "test_cairo_unit.py",
    "test_devnet_walk.py",
    "test_devnet_pcs.py",
    "test_devnet.py",
    "test_devnet_graph.py",
)
"""Started first: with one worker per core (scripts/test.sh) a long module started last would
leave the other cores idle at the end."""


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.path.name not in SLOW_MODULES)  # stable: order kept
