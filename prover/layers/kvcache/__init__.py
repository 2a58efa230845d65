"""QKV decoding with a KV cache (seed 003): T steps, each a new q, k, v row and a cache append."""
