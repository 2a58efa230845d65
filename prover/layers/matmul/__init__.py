"""C = A·B for an input A and a weight B: one projection without bias (docs/layers/matmul.md)."""
