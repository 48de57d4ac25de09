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

What a frame runs up to its compile cache key imports no xDSL and none of
hopc's IR machinery (Note [imports of a cache hit] in ``hopc.frontend.dynamo_backend``):
``hopc.compile`` of a module in training, with Dynamo's graph handed to those
steps of ``hopc_backend`` alone.
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


STEPS_UP_TO_THE_KEY_AND_LIST_IMPORTS = """\
import importlib
import json
import sys
import torch
import torch._dynamo

import hopc
import hopc.frontend.compile
from hopc.backend.runtime.generated_call import device_of
from hopc.compile_options import compile_options
from hopc.frontend import dynamo_backend
from hopc.frontend.dynamo_capture import graph_fake_mode, lift_tensor_attributes
from hopc.frontend.dynamo_graph_key import graph_cache_slot

slots = []


def up_to_the_key(graph_module, example_inputs, *, options=None, reports=None):
    chosen = compile_options(options)
    fake_mode = graph_fake_mode(graph_module)
    arguments = dynamo_backend._graph_arguments(graph_module)
    dynamo_backend._check_no_tensor_subclass(arguments)
    lifted = dynamo_backend._lifted_arguments(lift_tensor_attributes(graph_module, None, fake_mode))
    slots.append(graph_cache_slot(graph_module, arguments + lifted, chosen, device_of(example_inputs)))
    dynamo_backend._check_gradients_can_be_given(arguments + lifted)
    return graph_module.forward


hopc.frontend.compile.hopc_backend = up_to_the_key
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
x = torch.randn(3, 4)
compiled = hopc.compile(model)
outputs = compiled(x)
outputs.sum().backward()
assert torch.equal(outputs, model(x)) and model[0].weight.grad is not None
assert len(slots) == 1 and slots[0].path is not None, slots  # keyed: the graph's text was made
for name in sys.argv[2:]:
    importlib.import_module(name)
print(json.dumps(sorted({watched for watched in sys.argv[1].split(",") for name in sys.modules
                         if name == watched or name.startswith(watched + ".")})))
"""

IR_MACHINERY = ("xdsl", "hopc.dialects", "hopc.passes", "hopc.fx_import.importer")
"""What the steps of a frame up to its compile cache key do not import (Note [imports of a cache hit])."""


@pytest.mark.parametrize(("then_imported", "loaded"), [
    ((), []),
    # the control: the check sees the IR machinery where the driver loads it
    (("hopc.driver",), ["hopc.dialects", "hopc.passes", "xdsl"]),
])
def test_steps_up_to_the_cache_key_import_no_ir(tmp_path, then_imported: tuple[str, ...], loaded: list[str]):
    run = subprocess.run([sys.executable, "-c", STEPS_UP_TO_THE_KEY_AND_LIST_IMPORTS, ",".join(IR_MACHINERY),
                          *then_imported], capture_output=True, text=True,
                         env={**os.environ, "HOPC_CACHE": "1", "HOPC_CACHE_DIR": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == loaded


def test_the_light_defaults_are_the_passes_own():
    """``hopc.compile_options`` and the executors state what the passes would say, without importing them."""
    from hopc.backend.runtime import executors
    from hopc.compile_options import DEFAULT_MAX_CONSTANT_BYTES
    from hopc.passes import convert_hop_to_kernel, freeze

    assert DEFAULT_MAX_CONSTANT_BYTES == freeze.DEFAULT_MAX_CONSTANT_BYTES
    assert executors._CONDS_AS_SELECTS_IN_USE == convert_hop_to_kernel.CONDS_AS_SELECTS
