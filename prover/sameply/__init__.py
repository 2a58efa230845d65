"""Same-poly accumulation: several claims on one MLE become one claim (one sum-check)."""
