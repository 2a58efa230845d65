"""C = A·B proved by one sum-check over the inner dimension (public A, B and C)."""
