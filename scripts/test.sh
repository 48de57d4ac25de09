#!/usr/bin/env bash
# The whole test suite: static checks (ruff), pytest, then the lit + FileCheck suite.
# pytest runs its tests in parallel (pytest-xdist, one worker per core, at most 4):
# every test keeps its files under its own tmp_path and its state in its own process.
set -euo pipefail
cd "$(dirname "$0")/.."
export TRITON_INTERPRET=1
.venv/bin/ruff check .
.venv/bin/python -m pytest -q -n auto --maxprocesses=4
.venv/bin/lit -sv lit_tests
