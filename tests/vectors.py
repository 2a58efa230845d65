"""The shared upstream vectors (../shared/vectors beside the repository)."""

import json
from pathlib import Path

SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"
SHARED = json.loads((SHARED_DIR / "vectors" / "stwo_channels.json").read_text())
