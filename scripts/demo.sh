#!/usr/bin/env bash
# Set up, then the main job: prove a matmul, verify it in Python and on a devnet it starts.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/cairn demo "$@"
