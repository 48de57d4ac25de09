"""A first call of ``hopc.compile`` that needs no derivative loads no derivative machinery.

``hopc.passes.autograd`` (PyTorch's derivative tracing, the joint and its
partition) is loaded where a graph is differentiated (``hopc.driver.to_differentiated``,
the freeze pass's prepared layouts: ``hopc.passes.freeze.layouts``); importing
it costs a first call under ``torch.no_grad()`` time for nothing (bench/compile_time.py,
issue 25). Each case runs in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

FIRST_CALL_AND_LIST_IMPORTS = """\
import sys
import torch
import hopc

model = torch.nn.Linear(4, 4)
with torch.no_grad() if sys.argv[1] == "no_grad" else torch.enable_grad():
    hopc.compile(model)(torch.randn(2, 4)).sum()
print("autograd loaded:", any(name.startswith("hopc.passes.autograd") for name in sys.modules))
"""


@pytest.mark.parametrize(("mode", "loaded"), [
    ("no_grad", "False"),
    ("training", "True"),  # the control: the check sees the package when a derivative loads it
])
def test_first_call_loads_autograd_only_to_differentiate(mode: str, loaded: str):
    run = subprocess.run([sys.executable, "-c", FIRST_CALL_AND_LIST_IMPORTS, mode],
                         capture_output=True, text=True, check=True, env={**os.environ, "HOPC_CACHE": "0"})
    assert run.stdout.splitlines()[-1] == f"autograd loaded: {loaded}"

