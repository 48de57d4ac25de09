#!/usr/bin/env bash
# The whole test suite: static checks (ruff), pytest, then the lit + FileCheck suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export TRITON_INTERPRET=1
.venv/bin/ruff check .
.venv/bin/python -m pytest -q
.venv/bin/lit -sv lit_tests
