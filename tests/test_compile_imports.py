"""A first call of ``hopc.compile`` loads only the machinery its stages use.

A first call pays for every module it imports (bench/compile_time.py, issue
25), so each stage imports its machinery where it runs: ``hopc.passes.autograd``
(PyTorch's derivative tracing, the joint and its partition) and the
``TrainingCall`` where a graph is differentiated (``hopc.driver.to_differentiated``,
``to_executable``); ``hopc.frontend.freezing`` for ``freeze=True``;
``hopc.compile_report`` for ``report_dir``; Triton's code generation for the
executors that launch Triton kernels; the CUDA graph machinery for the
``cuda`` executor (host code's rule for ``kernel.graph`` imports it); the
reference interpreter's ATen implementations for the ``interpreter`` executor
(the host lowerings' rule table scans no package of the interpreter's);
``functionalize`` where the
module mutates or aliases (Note [skipped passes] in ``hopc.passes.pipeline``).
A linear layer under ``torch.no_grad()`` on the CPU needs none of them. Each
case runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

FIRST_CALL_AND_LIST_IMPORTS = """\
import json
import sys
import torch
import hopc

model = torch.nn.Linear(4, 4)
with torch.no_grad() if sys.argv[1] == "no_grad" else torch.enable_grad():
    hopc.compile(model)(torch.randn(2, 4)).sum()
print(json.dumps(sorted({watched for watched in sys.argv[2:] for name in sys.modules
                         if name == watched or name.startswith(watched + ".")})))
"""

NOT_FOR_A_NO_GRAD_CALL = (
    "hopc.passes.autograd",
    "hopc.backend.runtime.training_call",
    "hopc.frontend.freezing",
    "hopc.compile_report",
    "hopc.backend.triton.emit",
    "hopc.backend.host.ops_triton",
    "hopc.backend.interpreters.aten",
    "hopc.backend.cuda",
    "hopc.passes.functionalize",
)
"""Modules (and packages) that a first call of a linear layer under ``torch.no_grad()`` does not use."""


def _loaded_by_first_call(mode: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", FIRST_CALL_AND_LIST_IMPORTS, mode, *NOT_FOR_A_NO_GRAD_CALL],
                         capture_output=True, text=True, check=True, env={**os.environ, "HOPC_CACHE": "0"})
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.parametrize(("mode", "loaded"), [
    ("no_grad", []),
    # the control: the check sees the modules where a derivative loads them
    ("training", ["hopc.backend.runtime.training_call", "hopc.passes.autograd"]),
])
def test_first_call_loads_only_what_its_stages_use(mode: str, loaded: list[str]):
    assert _loaded_by_first_call(mode) == loaded
