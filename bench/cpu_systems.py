"""The systems bench/cpu.py compares, each a way to run a model of bench/cpu_programs.py.

``eager`` runs the model itself, ``python`` its plain-Python version;
``dynamo``, ``aot_eager`` and ``inductor`` are ``torch.compile`` with those
backends, ``floor`` a ``torch.compile`` whose backend computes nothing
(``dynamo_floor``), and ``hopc`` is ``hopc.compile`` on an executor. Every
system compiles lazily, on its first call, as ``torch.compile`` does. A
mode runs what a system gives: one call (``inference``, under ``grad_mode``)
or a training step (``step``).

Invariant: nothing here imports Dynamo at import time (``torch._dynamo`` is
loaded where a function first needs it), so that a first-call child of
bench/cpu.py times Dynamo's loading as part of its first call.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable

import torch

SYSTEMS = ("eager", "python", "dynamo", "floor", "aot_eager", "inductor", "hopc")
FIRST_CALL_SYSTEMS = ("eager", "dynamo", "aot_eager", "inductor", "hopc")
TORCH_BACKENDS = {"dynamo": "eager", "aot_eager": "aot_eager", "inductor": "inductor"}


def default_executor() -> str:
    """``"aten"`` where hopc has it, else ``"planned"``."""
    from hopc.backend.runtime.executors import EXECUTORS

    return "aten" if "aten" in EXECUTORS else "planned"


def compiled(system: str, model: torch.nn.Module, executor: str) -> Callable:
    """``model`` as ``system`` runs it (compiling lazily, on the first call, as torch.compile does)."""
    if system == "eager":
        return model
    if system == "python":
        return model.unrolled
    if system == "hopc":
        import hopc

        return hopc.compile(model, executor=executor)
    if system == "floor":
        return torch.compile(model.forward, backend=dynamo_floor)
    return torch.compile(model, backend=TORCH_BACKENDS[system])


def compile_settings(system: str) -> contextlib.AbstractContextManager:
    """Dynamo's settings for ``system``'s first call, where Dynamo compiles: the floor's frame
    is written without the per-call pre-graph profiler range, as hopc's are."""
    if system == "floor":
        return torch._dynamo.config.patch(record_runtime_overhead=False)
    return contextlib.nullcontext()


def dynamo_floor(graph_module: torch.fx.GraphModule, example_inputs: list) -> Callable:
    """A Dynamo backend that computes nothing: every call returns the graph's outputs on
    ``example_inputs`` (right only for calls on those inputs, as the bench makes them, and
    without gradients). Its per-call time is Dynamo's frame, guards and wrappers alone."""
    outputs = graph_module(*example_inputs)
    return lambda *args: outputs


def step(function: Callable, mode: str) -> Callable:
    """One inference call of ``function`` or, for training, its forward and the backward of ``.sum()``."""
    if mode == "inference":
        return function

    def training_step(*args: torch.Tensor) -> torch.Tensor:
        output = function(*args)
        output.sum().backward()
        return output

    return training_step


def grad_mode(mode: str) -> contextlib.AbstractContextManager:
    return torch.no_grad() if mode == "inference" else contextlib.nullcontext()


def failure_reason(failure: BaseException) -> tuple[str, str]:
    """The type and first message line of the exception behind ``failure`` (a backend's own, not Dynamo's wrapper)."""
    inner = getattr(failure, "inner_exception", None) or failure
    lines = [line for line in str(inner).splitlines() if line.strip()]
    return type(inner).__name__, (lines[0].strip() if lines else "")[:300]


def own_code(model: torch.nn.Module, system: str) -> torch.nn.Module:
    """``model`` with a ``forward`` whose code object is its own, not shared with other systems' models.

    Dynamo keeps state on a code object across backends: once one backend
    fails on a frame and Dynamo falls back to running it eagerly (Inductor
    and aot_eager on the while_loop RNN's training step), every later call of
    that code under any ``torch.compile`` or ``hopc.compile`` runs eagerly
    too, already compiled or not. A copy of the code per system keeps the
    systems apart.
    """
    forward = type(model).forward
    code = forward.__code__.replace(co_name=f"forward_{system}")
    function = types.FunctionType(code, forward.__globals__, code.co_name, forward.__defaults__,
                                  forward.__closure__)
    model.forward = types.MethodType(function, model)
    return model


def backend_fallback() -> str | None:
    """Why a backend failed on part of a program that Dynamo then ran eagerly, since counters were cleared."""
    from torch._dynamo.utils import counters

    for reason in counters["unimplemented"]:
        if reason.startswith("Backend compiler exception"):
            explanations = [line.strip() for line in reason.splitlines() if "Explanation:" in line]
            return (explanations or [reason.splitlines()[0]])[0].removeprefix("Explanation: ")
    return None
