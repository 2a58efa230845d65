"""QKV decoding with a KV cache (docs/layers/kvcache.md): T steps of new rows and appends."""
