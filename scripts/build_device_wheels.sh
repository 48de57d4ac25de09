#!/usr/bin/env bash
# The wheels the GPU device needs beside its own torch, into DIR (default build/device-wheels):
#
#     bash scripts/build_device_wheels.sh [DIR]
#
# The device (NOTES-gpu.md section 6) has Python 3.12 with torch 2.11, Triton 3.6, numpy,
# sympy, networkx, pytest and hypothesis, and cannot download. It lacks hopc and xDSL, so DIR
# gets:
#   - hopc's wheel, built by this checkout's .venv (its setuptools: a fresh venv's is too old
#     for hopc, and build isolation would download one) from a copy of the working tree
#     without build outputs, so that a stale build/ cannot fill gaps of the wheel
#     (Note [clean virtual environment] in tests/test_packaging.py);
#   - xDSL and its own dependencies, at the versions .venv runs the tests with, as pure-Python
#     wheels for Python 3.12.
# scripts/gpu_check.sh installs DIR with --no-index --no-deps, so hopc's torch and Triton pins
# never reach the device's torch. build/ is ignored by git: run the device call with
# carry=["build/device-wheels"].
set -euo pipefail
CHECKOUT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(realpath -m "${1:-$CHECKOUT/build/device-wheels}")
PYTHON=$CHECKOUT/.venv/bin/python
PIP=("$PYTHON" -m pip --disable-pip-version-check -q)

rm -rf "$DIR"
mkdir -p "$DIR"
SOURCE=$(mktemp -d)
trap 'rm -rf "$SOURCE"' EXIT

tar -C "$CHECKOUT" --exclude=./.git --exclude='./.venv*' --exclude=./build --exclude='*.egg-info' \
    --exclude=__pycache__ --exclude=Output --exclude=.hypothesis --exclude=.ruff_cache \
    --exclude=./tests --exclude=./lit_tests --exclude=./bench -cf - . | tar -C "$SOURCE" -xf -
"${PIP[@]}" wheel --no-deps --no-build-isolation -w "$DIR" "$SOURCE"

# xdsl==<version> and each of its unconditional requirements ==<version>, as installed in .venv.
mapfile -t PINNED < <("$PYTHON" - <<'PY'
import importlib.metadata as metadata

from packaging.requirements import Requirement

requirements = [Requirement(text) for text in metadata.requires("xdsl") or []]
for name in ["xdsl", *(requirement.name for requirement in requirements if requirement.marker is None)]:
    print(f"{name}=={metadata.version(name)}")
PY
)
"${PIP[@]}" download --no-deps --only-binary=:all: --python-version 3.12 --implementation py \
    --abi none --platform any -d "$DIR" "${PINNED[@]}"

ls "$DIR"
du -sh "$DIR"
