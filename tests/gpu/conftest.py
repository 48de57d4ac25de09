"""The GPU tests: hopc's compiled code on a CUDA device, against eager PyTorch on the same device.

Without CUDA every test here is skipped: collection imports nothing of hopc's CUDA
executor (``hopc.backend.cuda`` is imported inside the tests that use it), so the
folder collects on any machine. ``scripts/gpu_check.sh`` runs it on the device.

Note [compiled Triton on the device]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
These tests check the kernels Triton compiles for the GPU, never its CPU interpreter.
``TRITON_INTERPRET`` is read when a ``@triton.jit`` function is made, and hopc turns it
on for the whole process when it generates code for the CPU
(``hopc.backend.host.ops_triton.use_interpreter``, a ``setdefault``), which a compiled
executor does for every function it prepares. Set to ``0`` here, before any test
module imports Triton, it stays off for the whole run; set on by the caller, every test
fails with the reason rather than testing the interpreter on CUDA tensors.
"""

from __future__ import annotations

import os

import pytest
import torch

INTERPRET = "TRITON_INTERPRET"
INTERPRETER_ON = os.environ.get(INTERPRET, "0") not in ("", "0")

if torch.cuda.is_available() and not INTERPRETER_ON:
    os.environ[INTERPRET] = "0"


@pytest.fixture(autouse=True)
def cuda_device():
    """Skips without CUDA; on CUDA, a fresh Dynamo, and Triton compiling (Note [compiled Triton on the device])."""
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    if INTERPRETER_ON:
        pytest.fail(f"{INTERPRET}={os.environ[INTERPRET]}: tests/gpu checks compiled Triton kernels; unset it")
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    assert os.environ.get(INTERPRET) == "0", f"{INTERPRET} became {os.environ.get(INTERPRET)!r} during the test"
