#!/usr/bin/env bash
# Set up, then lint and run the whole test suite (Python, Cairo unit tests, real devnet).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
exec .venv/bin/python -m pytest -q "$@"
