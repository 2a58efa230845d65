"""Everything between a proof and Starknet: the Cairo toolchain, the contract build, devnet,
and declare/deploy/invoke with starknet-py."""
