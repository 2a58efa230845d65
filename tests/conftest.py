"""One devnet with CairnVerifier deployed, shared by every devnet test module (starting a
devnet and declaring the contract costs ≈10 s; the modules use distinct model ids)."""

import pytest

from tests.devnet_chain import deployed_chain


@pytest.fixture(scope="session")
def chain(tmp_path_factory):
    with deployed_chain(tmp_path_factory.mktemp("devnet")) as chain:
        yield chain
