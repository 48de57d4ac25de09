#!/usr/bin/env bash
# One-command setup of a hopc development environment in ./.venv.
#
# torch is pinned to 2.13.0 and installed first, so pip takes the CPU build
# from the machine's local package index and never resolves a newer (CUDA)
# release. Real MLIR's mlir-opt (Debian's mlir-22-tools) is installed when
# apt is usable; without it, the lit checks that need it are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet "torch==2.13.0"
.venv/bin/pip install --quiet -e ".[test]"

if ! command -v mlir-opt >/dev/null && [ ! -x /usr/lib/llvm-22/bin/mlir-opt ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && apt-get install -y -qq mlir-22-tools >/dev/null) \
      || echo "setup: could not install mlir-22-tools; mlir-opt checks will be skipped"
  else
    echo "setup: mlir-opt not found and apt-get unavailable; mlir-opt checks will be skipped"
  fi
fi
echo "setup: done. Activate with: . .venv/bin/activate"
