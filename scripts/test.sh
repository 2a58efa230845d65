#!/usr/bin/env bash
# Set up, then lint and run the whole test suite (Python, Cairo unit tests, real devnet).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# One worker per core; a module's tests stay on one worker, in order (the devnet modules
# share a devnet per worker and build on their own earlier steps); modules in collection
# order, the slowest first (tests/conftest.py).
exec .venv/bin/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder "$@"
