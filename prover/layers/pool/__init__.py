"""Sum pooling (docs/layers/pool.md): y[c] = Σ_{i<s} x[i, c], the mean's numerator."""
