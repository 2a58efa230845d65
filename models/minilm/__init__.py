"""all-MiniLM-L6-v2 sentence embeddings: the installed weights, the tokenizer, a float64
reference forward pass and the integer forward pass the proofs follow (docs/models/minilm.md)."""
