#!/usr/bin/env bash
# The one device call (NOTES-gpu.md section 6): hopc on the device's own torch, in under 8 minutes
# (its steps' timeouts, kill grace included, add up to 455 s).
#
#     bash scripts/build_device_wheels.sh            # here, first: build/device-wheels/
#     bash scripts/gpu_check.sh [WHEELS]             # there, from the repository root
#
# (the device tool: command "bash scripts/gpu_check.sh", carry ["build/device-wheels"],
# timeout_s 480). The device has Python 3.12, torch 2.11 (CUDA), Triton 3.6, numpy, sympy,
# pytest and hypothesis, and cannot download. Steps, each bounded by `timeout`, logs under
# $OUT (default /tmp/hopc-gpu-check):
#   1. install the wheels into $SITE with --no-index --no-deps (torch, Triton, numpy and sympy
#      stay the image's: hopc's own pins never reach pip);
#   2. versions: GPU and driver, torch, CUDA, Triton, xDSL, numpy, cuda-bindings, and where
#      hopc was imported from (it must be $SITE);
#   3. scripts/cond_node_probe.py: conditional nodes made by hand (probe.log);
#   4. pytest tests/gpu, the targeted files before the corpus, one line per test so that a run
#      cut by its timeout still tells which passed; per-test timeout where pytest-timeout is
#      installed (tests.log);
#   5. bench/gpu.py --short (bench.log, gpu_bench.json, rewritten after each measurement);
#   6. one summary: probe lines, the pytest counts, the benchmark tables.
# Scripts run as `python3 path/script.py` (only the script's folder joins sys.path) and
# pytest as `python3 -P -m pytest`, so the checkout's top-level hopc/ folder never shadows
# the installed package.
set -uo pipefail
cd "$(dirname "$0")/.."
WHEELS=${1:-build/device-wheels}
OUT=${OUT:-/tmp/hopc-gpu-check}
SITE=/tmp/hopc-site
CACHES=/tmp/hopc-caches
mkdir -p "$OUT" "$CACHES"
export OUT PYTHONUNBUFFERED=1
START=$SECONDS
step() { echo "== $1 ($((SECONDS - START)) s)"; }

step "install $WHEELS into $SITE"
if python3 -m pip --version >/dev/null 2>&1; then
    timeout -k 5 30 python3 -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile \
        --no-cache-dir --upgrade --target "$SITE" "$WHEELS"/*.whl \
        || { echo "gpu_check: the wheels did not install"; exit 1; }
else  # pure-Python wheels: unpacked, they are installed (without their console scripts)
    for wheel in "$WHEELS"/*.whl; do python3 -m zipfile -e "$wheel" "$SITE" || exit 1; done
fi
export PYTHONPATH=$SITE
# Compiled Triton, never its interpreter: 0, not unset, so that hopc's setdefault for CPU code
# cannot turn it on for the process (Note [compiled Triton on the device] in tests/gpu/conftest.py).
export TRITON_INTERPRET=0 TRITON_DEFAULT_FP_FUSION=1
export TRITON_CACHE_DIR=$CACHES/triton HOPC_TRITON_CACHE_DIR=$CACHES/hopc-triton HOPC_CACHE_DIR=$CACHES/hopc \
    TORCHINDUCTOR_CACHE_DIR=$CACHES/inductor XDG_CACHE_HOME=$CACHES/xdg

step "versions"
timeout 10 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
SITE=$SITE timeout -k 5 30 python3 -P - <<'PY' 2>&1 | tee "$OUT/versions.log"
import importlib.metadata as metadata
import os
import sys

import numpy
import torch
import triton


def version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), triton {triton.__version__}, "
      f"xdsl {version('xdsl')}, numpy {numpy.__version__}, cuda-bindings {version('cuda-bindings')}, "
      f"pytest-timeout {version('pytest-timeout')}, pytest-xdist {version('pytest-xdist')}")
print(f"device: {torch.cuda.get_device_name() if torch.cuda.is_available() else 'no CUDA device'}")
import hopc  # last: the versions above print even where hopc fails to import

print(f"hopc from {hopc.__file__}")
sys.exit(not hopc.__file__.startswith(os.environ["SITE"]))
PY
HOPC_IMPORTED=${PIPESTATUS[0]}

step "conditional-node probe"
timeout -k 5 45 python3 scripts/cond_node_probe.py 2>&1 | tee "$OUT/probe.log"
[ "$HOPC_IMPORTED" = 0 ] || { echo "gpu_check: hopc is not the installed wheel, or it does not import"; exit 1; }

step "pytest tests/gpu"
PYTEST_OPTIONS=()
python3 -P -c "import pytest_timeout" 2>/dev/null && PYTEST_OPTIONS+=(--timeout=60)
python3 -P -c "import xdist" 2>/dev/null && PYTEST_OPTIONS+=(-n 4)
timeout -k 10 180 python3 -P -m pytest -v -p no:cacheprovider -rfE "${PYTEST_OPTIONS[@]}" \
    tests/gpu/test_gpu_graphs.py tests/gpu/test_gpu_triton_kernels.py tests/gpu/test_gpu_dropout.py \
    tests/gpu/test_gpu_corpus.py 2>&1 | tee "$OUT/tests.log" \
    | grep -v -E " (PASSED|SKIPPED)|^tests/gpu/[^ ]+ *$|^$" | tail -40  # xdist prints each test as it starts

step "bench/gpu.py --short"
timeout -k 10 100 python3 bench/gpu.py --short 2>&1 | tee "$OUT/bench.log" | grep -v -E "^(W|I)[0-9]{4} " | tail -30

step "summary"
echo "| check | result |"
echo "|---|---|"
grep "^probe " "$OUT/probe.log" | sed -E 's/^probe ([^:]*): (.*)$/| probe \1 | \2 |/'
COUNTS=$(grep -E '^=* ?[0-9]+ (passed|failed|error|errors|skipped|deselected)' "$OUT/tests.log" | tail -1 | tr -d '=')
if [ -z "$COUNTS" ]; then  # cut by its timeout (or crashed): the tests that finished, from their lines
    COUNTS="no pytest summary (timed out or crashed): $(grep -c ' PASSED' "$OUT/tests.log") passed, $(grep -c ' FAILED' "$OUT/tests.log")"
    COUNTS+=" failed, $(grep -c ' ERROR' "$OUT/tests.log") errors, $(grep -c ' SKIPPED' "$OUT/tests.log") skipped"
fi
echo "| tests/gpu | $COUNTS |"
if [ -f "$OUT/gpu_bench.json" ]; then
    timeout -k 5 20 python3 bench/gpu.py --tables "$OUT/gpu_bench.json"
else
    echo "bench/gpu.py wrote no results"
fi
step "done"
