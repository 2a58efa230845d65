#!/usr/bin/env bash
# Idempotent setup: a virtualenv with the pinned Python packages (reinstalled only when
# pyproject.toml changes), then the pinned Cairo toolchain and starknet-devnet, built from
# crates.io into ~/.cache/cairn/toolchain and skipped when already there.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.cairn-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  echo "$want" > "$stamp"
fi
.venv/bin/cairn toolchain install
