"""The two felts every calldata starts with (docs/calldata.md): the layout's version and the
proof's kind."""

VERSION = 3
"""2 also had kinds 1 and 3 (the standalone matmul), retired when matmul became a walk layer."""
KIND_PCS = 2
KIND_WALK = 4
KIND_GRAPH = 5
