"""The keys under which the contract holds certified declarations (cairn.deploy.certified,
docs/registry.md, "Certified declarations"): one per committed weight of a range walk, naming
its commitment and its whole declaration. Their Cairo twin is checked on a devnet
(test_devnet_walk.test_range_walk_certifies_declarations)."""

import dataclasses

from cairn.deploy.certified import certified_keys, declaration_key
from cairn.prover.graph.declared import WeightRange
from tests.walk_examples import example


def test_one_key_per_committed_weight():
    st = example("range", 1, committed=True).statement
    keys = certified_keys(st)
    assert len(keys) == len(set(keys)) == len(st.committed)


def test_public_weights_and_other_kinds_certify_nothing():
    assert certified_keys(example("range", 1).statement) == []
    assert certified_keys(example("linear", 0, committed=True).statement) == []


def test_the_key_names_the_commitment_and_the_whole_declaration():
    st = example("range", 0, committed=True).statement
    tensor = st.committed["w00"]
    top = int(st.outputs["s00"].max())
    r = WeightRange(7, top)
    key = declaration_key(tensor, r)
    assert key == certified_keys(st)[0]
    commitment = dataclasses.replace(tensor.commitment, root=tensor.commitment.root ^ 1)
    assert len({
        key,
        declaration_key(tensor, WeightRange(8, top)),
        declaration_key(tensor, WeightRange(7, top + 1)),
        declaration_key(tensor, WeightRange(7)),
        declaration_key(dataclasses.replace(tensor, commitment=commitment), r),
        declaration_key(dataclasses.replace(tensor, shape=(*tensor.shape, 1)), r),
    }) == 6  # fmt: skip
