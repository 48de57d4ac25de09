#!/usr/bin/env bash
# hopc's test suite on another torch: by default torch 2.11.0 + Triton 3.6.0, the stack of the
# GPU device machine. Not part of CI.
#
#   bash scripts/test_torch_compat.sh [TORCH_VERSION=2.11.0] [TRITON_VERSION=3.6.0] [PYTEST ARGS...]
#
# Builds (once) a second virtual environment in the checkout, .venv-torch<major.minor>
# (git-ignored; about 4.7 GB and 100 s for 2.11), with that torch and Triton from the package
# index: the CUDA wheel, which imports and runs on a CPU. hopc is installed editable with
# --no-deps, since its pyproject pins the main environment's torch, and its other requirements
# (pyproject's dependencies and test extra, less torch and triton) are installed under a
# constraints file that pins torch, triton and numpy, so pip cannot replace them.
# Then runs pytest (and, with no PYTEST ARGS, lit) there with TRITON_INTERPRET=1, and prints a
# summary. PYTEST ARGS (test paths, -k ...) replace the whole suite and skip lit.
#
# pip reports that hopc requires torch==2.13.0 and triton==3.9.*: expected, those pins are the
# main environment's and hopc runs on the constrained versions here.
#
# Known differences on torch 2.11.0 + Triton 3.6.0 (CPU), each checked against a reference:
# - torch 2.11's eager scan backward drops the gradient through a carry whose initial value does
#   not require grad (its joint graph returns zeros_like for it; 2.13 is right). hopc agrees with
#   its reference interpreter and with the same loop unrolled in eager, and so differs from eager
#   scan: tests/autograd/test_autograd_scan.py::test_mixed_requires_grad,
#   tests/autograd/test_functorch_grad_outer.py (chunked cross-entropy in a scan, 6 tests), and
#   (same pattern, not checked one by one) test_custom_autograd_function.py::
#   test_function_inside_a_scan_body.
# - Dynamo 2.11 drops ctx.mark_dirty (no dirty_idx on autograd_function_apply), and with it the
#   changed argument's new history: hopc followed its graph and gave half of eager's gradient,
#   so hopc now refuses such a forward, located (test_custom_autograd_function_outputs.py, the
#   9 dirty tests).
# - tests/frontend/test_threads.py::test_each_thread_gets_its_own_result: Dynamo 2.11 reports
#   "FX to symbolically trace a dynamo-optimized function" (a located internal error), and
#   test_custom_ops.py::test_mixtral_trains_like_eager is 1.3e-5 off at 1e-5; not investigated.
# - torch 2.11's meta kernel of aten._scaled_dot_product_flash_attention_for_cpu types the
#   logsumexp float32 for float64 inputs, where its CPU kernel returns float64 (2.13's meta says
#   float64). The IR follows the meta kernel, so the interpreter refuses the value, located
#   (test_autograd_corpus.py::test_corpus_gradients[transformer_block], a float64 block);
#   the compiled executors pass the kernel's tensor on and match eager.
# - torch 2.11's fake convolution asks _select_conv_backend for a backend whenever the batch
#   size has a hint, and that guards on the batch (s0 >= 16); hopc refuses the guard, located
#   (test_op_tracer.py::test_symbolic_convolution_traces_without_a_guard). 2.13 traces it
#   without a guard.
# - Dynamo 2.11's stack traces have no carets under the code, so an op's location is its
#   line and the column where the statement starts, not the expression's
#   (lit_tests/frontend/locations.py).
# - Seen in the full run of 2026-11-28 (27 failed, 4843 passed; the ones above and these six),
#   reasons as far as read from the log, not investigated further:
#   tests/real_models/test_architectures.py qwen2 x2, phi3: parameters after 3 AdamW steps differ
#   from eager's by 1e-8 (the bit-identity those tests ask; 2.11's kernels sum in another order);
#   test_functionalize_inplace_types.py[aten.copy]: tracing aten.copy guards Ne(s0, 4) on 2.11,
#   refused, located; test_packaging.py: `pip wheel --no-build-isolation` fails in this venv (its
#   setuptools, not hopc); tests/autograd/test_item_slices.py::test_a_size_no_fact_decides_is_a_
#   located_error: on 2.11 a slice at an unbacked u0 with no assert u0 <= s0 is accepted where
#   2.13 refuses it: check what 2.11's trace assumes before trusting 2.11 with such slices.
# - With numpy >= 2.4, Triton 3.6's interpreter fails `range()` over a runtime int (12
#   reduction tests); hence the numpy pin below. The device machine has numpy 2.5.
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION=${1:-2.11.0}
TRITON_VERSION=${2:-3.6.0}
shift $(($# < 2 ? $# : 2))
VENV=.venv-torch${TORCH_VERSION%.*}
STAMP="$VENV/hopc-compat-versions"
WANTED="torch==$TORCH_VERSION triton==$TRITON_VERSION"

if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANTED" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # Triton 3.6's interpreter calls int() on a one-element array, which NumPy 2.4 refuses
  # (Triton 3.9 fixed it), so every interpreted reduction with a runtime size would fail.
  printf 'torch==%s\ntriton==%s\nnumpy<2.4\n' "$TORCH_VERSION" "$TRITON_VERSION" >"$VENV/constraints.txt"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet -c "$VENV/constraints.txt" "torch==$TORCH_VERSION" "triton==$TRITON_VERSION" "numpy<2.4"
  "$VENV/bin/pip" install --quiet --no-deps -e .
  # pyproject's requirements but torch and triton, read by the new environment's own Python.
  mapfile -t REQUIREMENTS < <("$VENV/bin/python" - <<'EOF'
import re
import tomllib

with open("pyproject.toml", "rb") as file:
    project = tomllib.load(file)["project"]
for requirement in project["dependencies"] + project["optional-dependencies"]["test"]:
    if re.match(r"[A-Za-z0-9_.-]+", requirement).group() not in ("torch", "triton"):
        print(requirement)
EOF
)
  "$VENV/bin/pip" install --quiet -c "$VENV/constraints.txt" "${REQUIREMENTS[@]}"
  echo "$WANTED" >"$STAMP"
fi

export TRITON_INTERPRET=1
"$VENV/bin/python" -c 'import numpy, torch, triton; print(f"torch {torch.__version__}, triton {triton.__version__}, numpy {numpy.__version__}")'
LOG_DIR=$(mktemp -d)
pytest_status=0
lit_status=skipped
if [ $# -gt 0 ]; then
  "$VENV/bin/python" -m pytest -q -n auto --maxprocesses=4 -p no:cacheprovider "$@" | tee "$LOG_DIR/pytest.log" \
    || pytest_status=$?
else
  "$VENV/bin/python" -m pytest -q -n auto --maxprocesses=4 -p no:cacheprovider | tee "$LOG_DIR/pytest.log" \
    || pytest_status=$?
  lit_status=0
  "$VENV/bin/lit" -sv lit_tests | tee "$LOG_DIR/lit.log" || lit_status=$?
fi

echo
echo "== summary: torch $TORCH_VERSION, triton $TRITON_VERSION (logs in $LOG_DIR)"
grep -E '^(FAILED|ERROR) ' "$LOG_DIR/pytest.log" || true
echo "pytest: $(tail -n 1 "$LOG_DIR/pytest.log")"
if [ "$lit_status" != skipped ]; then
  grep -E '^  hopc :: ' "$LOG_DIR/lit.log" || true
  echo "lit: $(grep -E '^ *(Passed|Failed|Unsupported|Expectedly Failed|Unresolved)' "$LOG_DIR/lit.log" | tr -s ' ' | paste -sd ',')"
fi
[ "$pytest_status" = 0 ] && { [ "$lit_status" = skipped ] || [ "$lit_status" = 0 ]; }
