"""Declared ranges of committed weights (docs/layers/range.md): every entry of w_i lies in
[−2^(b_i−1), 2^(b_i−1)), proven by lookups, so the relations reading w_i hold over the integers."""
