"""``hopc.capture`` on the corpus: IR kept as PyTorch ran it, equal to eager on every input set.

Where real MLIR's ``mlir-opt`` is installed (Debian's ``mlir-22-tools``), it must
accept the generic form of every captured module, and of it after hopc's pass
pipeline, locations included.
"""

import shutil
import subprocess

import pytest
from frontend_corpus import CASES
from frontend_harness import check_capture

import hopc
from hopc.passes.pipeline import run_pipeline

MLIR_OPT = next((path for name in ("mlir-opt", "mlir-opt-22", "/usr/lib/llvm-22/bin/mlir-opt")
                 if (path := shutil.which(name))), None)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_capture_matches_eager(case):
    module = check_capture(case.make(), case.inputs, case.dynamic_shapes)
    text = str(module)
    for op in case.ops:
        assert op in text, f"{op} missing from the captured IR"


@pytest.mark.skipif(MLIR_OPT is None, reason="real mlir-opt (mlir-22-tools) is not installed")
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_mlir_opt_accepts_the_generic_form(case):
    captured = check_capture(case.make(), case.inputs[:1], case.dynamic_shapes)
    for module in (captured, run_pipeline(captured.clone())):
        generic = hopc.to_text(module, debuginfo=True, generic=True)
        result = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", "--mlir-print-debuginfo",
                                 "-"], input=generic, capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        assert "loc(\"" in result.stdout  # the user's lines survive
