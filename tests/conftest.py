"""One devnet with CairnVerifier deployed, shared by every devnet test module (starting a
devnet and declaring the contract costs ≈10 s; the modules use distinct model ids)."""

import pytest

from tests.devnet_chain import deployed_chain


@pytest.fixture(scope="session")
def chain(tmp_path_factory):
    with deployed_chain(tmp_path_factory.mktemp("devnet")) as chain:
        yield chain


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
