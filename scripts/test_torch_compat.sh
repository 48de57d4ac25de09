#!/usr/bin/env bash
# hopc's test suite on another torch: by default torch 2.11.0 + Triton 3.6.0, the stack of the
# GPU device machine. Not part of CI.
#
#   bash scripts/test_torch_compat.sh [TORCH_VERSION=2.11.0] [TRITON_VERSION=3.6.0] [PYTEST ARGS...]
#   bash scripts/test_torch_compat.sh [TORCH_VERSION=2.11.0] [TRITON_VERSION=3.6.0] lit [LIT PATHS...]
#
# Builds (once) a second virtual environment in the checkout, .venv-torch<major.minor>
# (git-ignored; about 4.7 GB and 100 s for 2.11), with that torch and Triton from the package
# index: the CUDA wheel, which imports and runs on a CPU. hopc is installed editable with
# --no-deps, since its pyproject pins the main environment's torch, and its other requirements
# (pyproject's build requirements, which tests/test_packaging.py's `pip wheel
# --no-build-isolation` uses, its dependencies and test extra, less torch and triton) are
# installed under a constraints file that pins torch, triton and numpy, so pip cannot replace them.
# Then runs pytest (and, with no PYTEST ARGS, lit) there with TRITON_INTERPRET=1, and prints a
# summary. PYTEST ARGS (test paths, -k ...) replace the whole suite and skip lit; `lit` runs only
# lit, on LIT PATHS (default lit_tests).
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
# - tests/frontend/test_threads.py::test_each_thread_gets_its_own_result (one executor or another,
#   about one run in two) fails with Dynamo's "Detected that you are using FX to symbolically
#   trace a dynamo-optimized function", a located internal error. Grad mode is per thread, so each
#   thread recompiles the program, and while one thread's compile traces its graph with make_fx
#   (which sets torch.fx's FX-tracing flag, one for the process), the other thread's call meets
#   the flag in Dynamo's entry check. torch 2.13 hides the flag from that check by holding
#   torch.compiler._is_compiling_flag through each compile (pytorch#184614); 2.11 does not: with
#   torch alone, compiling a function with backend="aot_eager" (make_fx inside) in one thread
#   fails another thread's calls of a function compiled before, on 2.11 and not on 2.13. hopc's
#   compiles are compile sessions where torch has them (Note [compile session across threads] in
#   hopc.frontend.compile_session: the hop-level module's compile and hopc.capture, which failed
#   other threads' calls on 2.13 too). Holding the flag on 2.11 as well fixed this test there but
#   changed what PyTorch's code traced in hopc's compiles does (it asks is_compiling()): 21 tests
#   of data-dependent autograd functions and regions failed, located, so on 2.11 hopc does as
#   torch's own aot_eager does; the session tests of test_threads.py skip there.
# - test_custom_ops.py::test_mixtral_trains_like_eager: after 2 AdamW steps hopc's parameters are
#   1.9e-5 from eager's (tolerance 1e-5) on 2.11, and torch's own aot_eager's are 1.3e-5 from
#   eager's there (0.0 on 2.13, where hopc's are 8.4e-6 off, within the tolerance); hopc and
#   aot_eager differ by 5.6e-6 on 2.11. 2.11's compiled backward, as for qwen2/phi3 below.
# - torch 2.11's meta kernel of aten._scaled_dot_product_flash_attention_for_cpu types the
#   logsumexp float32 for float64 inputs, where its CPU kernel returns float64 (2.13's meta says
#   float64). The IR follows the meta kernel, so the interpreter refuses the value, located
#   (test_autograd_corpus.py::test_corpus_gradients[transformer_block], a float64 block);
#   the compiled executors pass the kernel's tensor on and match eager.
# - torch 2.11's fake convolution asks _select_conv_backend for a backend whenever the batch
#   size has a hint, and that guards on the batch (s0 >= 16); hopc refuses the guard, located
#   (test_op_tracer.py::test_symbolic_convolution_traces_without_a_guard). 2.13 traces it
#   without a guard.
# - Dynamo 2.11's frame summaries carry no columns (2.13's pass the instruction's positions), so
#   an op's location is its line and the column where its statement starts, not the
#   expression's; lit_tests/frontend/locations.py accepts either column.
# - A slice x[:u0] at an unbacked u0 >= 0 that no fact bounds by the size: 2.11's fake slice gives
#   the rows a fresh size, 2.13's Min(s0, u0) (pytorch#178899). What Dynamo captures names the
#   rows by a fresh symbol on both and is right at every k: tests/autograd/test_item_slices.py's
#   programs (k negative, inside and past the rows) match eager on every CPU executor, with and
#   without grad, as do k = -9, -2, 0, 3, 6, 9 over 6 rows against a plain-Python reference. Only
#   a slice written in IR as [u0, 4] differs: 2.13's derivative refuses it (lit_tests/passes/
#   autograd/invalid-unbounded-slice.mlir, unsupported on 2.11), 2.11's names the fresh rows u0
#   after the tangent's type, that is it takes the declared type at its word, which gives eager's
#   values up to the rows and a located error past them (test_item_slices.py checks both).
# - Dynamo 2.11 guards torch._check(k <= x.shape[0]) for k = n.item() of an input n instead of
#   asserting it in the graph, so hopc does not see the fact and refuses the derivative of a
#   slice at k, located ("its trace assumes u0 <= s77 ... which nothing checks"), where 2.13
#   trains; no test of the suite does this.
# - test_architectures.py qwen2 (x2) and phi3: after 3 AdamW steps 12 of qwen2's 15 parameters
#   (7 of phi3's 9) differ from eager's by about 1e-8, and torch's own aot_eager backend gives
#   hopc's parameters bit for bit; on 2.13 both give eager's. 2.11's compiled backward, not hopc.
# - test_functionalize_inplace_types.py[aten.copy]: 2.11's meta_copy_ compares self.size() !=
#   src.size(), which for [s0, 4] and [4] guards Ne(s0, 4) (2.13 expands through _refs);
#   refused, located.
# - test_packaging.py: the wheel now builds (the environment gets pyproject's build requirements;
#   it had Python's setuptools 65, without bdist_wheel), and then the smoke run segfaults in
#   torch.cond: torch 2.11 crashes in torch.cond after a FakeTensorMode was used in another
#   thread (hopc-opt runs its passes in a thread, the autograd pass traces there), as five lines
#   of plain torch show; 2.13 does not. The smoke run now trains through the executors before
#   it runs hopc-opt's passes in its own process, and the test passes on 2.11 (2 passed).
# - Runs of 2026-11-28, before the slice, lit and packaging changes above: pytest in full, 27
#   failed and 4843 passed, each failure one of the differences above; lit in full (at f9fd313),
#   118 of 120 passed, and the other two (locations.py, the slice) now pass or are unsupported.
# - test_symbolic_rounding_ops.py, round(f) of a float read: Dynamo 2.11 itself fails ("type Proxy
#   doesn't define __round__ method"), with backend="eager" too; hopc reports it located. The
#   round cases skip where torch's own Dynamo cannot trace the program (a probe, not a version).
# - Full pytest run of 2026-11-28 at deea6ee (after every change above): 36 failed, 5233 passed;
#   25 are the differences listed here, the other 11 the round cases, which now skip.
# - Full pytest run of 2026-11-28 at 009d9dc (seventh session): 45 failed, 5331 passed, 170
#   skipped; 24 are the differences listed here, the other 21 the compile session holding
#   is_compiling() on 2.11 (above), since made 2.13-only: those 21 then passed (with
#   test_threads.py, whose one thread test failed as listed). lit there: 135 of 137 passed, 1
#   unsupported (the unbounded slice above), 1 failed: lit_tests/frontend/symbolic_logic.py, whose
#   torch._check of a conjunction Dynamo 2.11 asserts as its parts (Ge(u1, 0), Le(u1, 3)), kept
#   by hopc as they are; that case is now symbolic_conjunction.py, which needs 2.13 (lit.cfg.py).
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
    pyproject = tomllib.load(file)
project = pyproject["project"]
for requirement in (pyproject["build-system"]["requires"] + project["dependencies"]
                    + project["optional-dependencies"]["test"]):
    if re.match(r"[A-Za-z0-9_.-]+", requirement).group() not in ("torch", "triton"):
        print(requirement)
EOF
)
  # torch again, installed already, so that its own requirements (setuptools<82 for 2.11) hold too.
  "$VENV/bin/pip" install --quiet -c "$VENV/constraints.txt" "torch==$TORCH_VERSION" "${REQUIREMENTS[@]}"
  echo "$WANTED" >"$STAMP"
fi

export TRITON_INTERPRET=1
"$VENV/bin/python" -c 'import numpy, torch, triton; print(f"torch {torch.__version__}, triton {triton.__version__}, numpy {numpy.__version__}")'
LOG_DIR=$(mktemp -d)
pytest_status=skipped
lit_status=skipped
if [ "${1:-}" = lit ]; then
  shift
  [ $# -gt 0 ] || set -- lit_tests
  lit_status=0
  "$VENV/bin/lit" -sv "$@" | tee "$LOG_DIR/lit.log" || lit_status=$?
elif [ $# -gt 0 ]; then
  pytest_status=0
  "$VENV/bin/python" -m pytest -q -n auto --maxprocesses=4 -p no:cacheprovider "$@" | tee "$LOG_DIR/pytest.log" \
    || pytest_status=$?
else
  pytest_status=0
  "$VENV/bin/python" -m pytest -q -n auto --maxprocesses=4 -p no:cacheprovider | tee "$LOG_DIR/pytest.log" \
    || pytest_status=$?
  lit_status=0
  "$VENV/bin/lit" -sv lit_tests | tee "$LOG_DIR/lit.log" || lit_status=$?
fi

echo
echo "== summary: torch $TORCH_VERSION, triton $TRITON_VERSION (logs in $LOG_DIR)"
if [ "$pytest_status" != skipped ]; then
  grep -E '^(FAILED|ERROR) ' "$LOG_DIR/pytest.log" || true
  echo "pytest: $(tail -n 1 "$LOG_DIR/pytest.log")"
fi
if [ "$lit_status" != skipped ]; then
  grep -E '^  hopc :: ' "$LOG_DIR/lit.log" || true
  echo "lit: $(grep -E '^ *(Passed|Failed|Unsupported|Expectedly Failed|Unresolved)' "$LOG_DIR/lit.log" | tr -s ' ' | paste -sd ',')"
fi
{ [ "$pytest_status" = skipped ] || [ "$pytest_status" = 0 ]; } && { [ "$lit_status" = skipped ] || [ "$lit_status" = 0 ]; }
