"""Batched LogUp-GKR over QM31 (docs/lookups.md): fractional sums of many instances proved by
one GKR walk from their roots to their leaves, one degree-3 sum-check per layer."""
