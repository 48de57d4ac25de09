"""Executors: what turns one function of a module into a callable ``args -> results``.

An ``Executor`` prepares a function once (``prepare(module, function)``) and
the callable it returns runs it on a list of argument values, returning the
list of its results; tensors are the caller's own, so the function's in-place
effects (at the captured level) reach them. Executors are chosen by name
(``EXECUTORS``, ``executor_named``); ``DEFAULT_EXECUTOR`` is the fastest one
that is correct on every module the reference interpreter runs.

- ``interpreter``: the reference interpreter (``hopc.backend.interpreter``),
  checking every value against its type and every symbol binding;
- ``planned``: the same semantics, planned once and unchecked (Note [planned
  execution] in ``hopc.backend.runtime.plan``);
- ``aten``: the function lowered to the kernel level (``lower_to_kernel``)
  and generated as Python source calling ATen (Note [generated host code]
  in ``hopc.backend.host.codegen``), every kernel's ops inlined;
- ``triton``: the same host code, launching generated Triton kernels for the
  pointwise and reduction kernels (Triton's interpreter on the CPU);
- ``auto``: ``triton`` for CUDA tensors, ``aten`` for CPU ones.

Note [compiled executors]
~~~~~~~~~~~~~~~~~~~~~~~~~
The compiled executors run kernel-level code, which is made for one device
(``kernel.device``: its buffers are allocated there), and a functional
module does not say where its tensors will be. A module is lowered once per
device (cached by the module's identity: a training call prepares its
forward and backward entries from one module), and the function prepared for
the CPU at once, so that an op without a lowering is an error when the
function is prepared. The first call reads the device of its first tensor
argument and prepares the function for that device where it is another;
every later call runs what the first chose (Dynamo guards the device of what
it compiles). A module that is kernel level already (it has
``kernel.device``) runs as it is, on its own device. What is prepared is a
``GeneratedCall``; a caller that knows the device and has grad mode off for
good (a Dynamo graph compiled so: Dynamo guards both) may take the generated
function itself (``GeneratedCall.for_device``) and call it with the
arguments, one Python call in all (Note [direct entry] in
``hopc.backend.runtime.module_call``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol
from weakref import WeakKeyDictionary

import torch
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.traits import SymbolTable

from hopc.ir.diagnostics import HopcError

Prepared = Callable[[Sequence[object]], list[object]]


class Executor(Protocol):
    name: str

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        """``function`` of ``module`` ready to run: ``args -> results``."""
        ...


class InterpreterExecutor:
    """The checked reference interpreter."""

    name = "interpreter"

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.interpreter import run_module

        name = function.sym_name.data
        return lambda args: run_module(module, args, function=name)


class PlannedExecutor:
    """The reference semantics, planned once per function and run unchecked."""

    name = "planned"

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.runtime.plan import plan_function

        return plan_function(function)


class CompiledExecutor:
    """Generated host code over the kernel level (Note [compiled executors]).

    ``triton_on`` is the devices whose pointwise and reduction launches run
    generated Triton kernels; elsewhere every kernel's ATen ops run inlined.
    """

    def __init__(self, name: str, triton_on: frozenset[str]):
        self.name = name
        self.triton_on = triton_on

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.dialects.kernel import DEVICE_ATTRIBUTE, module_device

        name = function.sym_name.data
        if DEVICE_ATTRIBUTE in module.attributes:
            generated = self._generate(module, name, module_device(module))
            return GeneratedCall(lambda device: generated, generated)
        prepared = {"cpu": self._generate(_lowered(module, "cpu"), name, "cpu")}

        def for_device(device: str) -> Generated:
            if device not in prepared:
                prepared[device] = self._generate(_lowered(module, device), name, device)
            return prepared[device]

        return GeneratedCall(for_device)

    def _generate(self, module: ModuleOp, name: str, device: str) -> Generated:
        from hopc.backend.host.codegen import generate_function
        from hopc.backend.host.ops_kernel import lower_launch_inline

        function = _function_named(module, name)
        if device in self.triton_on:
            from hopc.backend.host.ops_triton import lower_launch_triton

            return generate_function(function, lower_launch_triton, device).compile()
        return generate_function(function, lower_launch_inline, device, first_write_allocates=True).compile()


Generated = Callable[..., list[object]]
"""A generated function (``GeneratedFunction.compile``'s): ``*args -> results``."""


class GeneratedCall:
    """A generated function, run with grad mode off: generated code writes ``out=`` buffers,
    which autograd refuses for inputs that require grad. No gradient flows through an
    executor (a training call differentiates the forward and backward functions itself), so
    nothing is lost. ``for_device`` gives the function for a device; unless ``run`` is given,
    the first call picks it by its arguments (Note [compiled executors]), and every later call
    runs ``run``."""

    def __init__(self, for_device: Callable[[str], Generated], run: Generated | None = None):
        self.for_device = for_device
        self.run = run

    @property
    def source(self) -> str:
        """The generated source of the function chosen (``GeneratedFunction.compile``'s)."""
        return self.run.source  # type: ignore[union-attr]

    def __call__(self, args: Sequence[object]) -> list[object]:
        run = self.run
        if run is None:
            run = self.run = self.for_device(device_of(args))
        if not torch.is_grad_enabled():
            return run(*args)
        with torch.no_grad():
            return run(*args)


_LOWERED: WeakKeyDictionary[ModuleOp, dict[str, ModuleOp]] = WeakKeyDictionary()
"""Each functional module -> its kernel-level copy per device (Note [compiled executors]): IR
alone, living as long as the module; the tensors converted from its constants belong to the
code generated from it (Note [converted constants] in ``hopc.backend.interpreter_hop``)."""


def _lowered(module: ModuleOp, device: str) -> ModuleOp:
    from hopc.backend.lowering import lower_to_kernel

    per_device = _LOWERED.setdefault(module, {})
    if device not in per_device:
        per_device[device] = lower_to_kernel(module, device)
    return per_device[device]


def _function_named(module: ModuleOp, name: str) -> FuncOp:
    function = SymbolTable.lookup_symbol(module, name)
    if not isinstance(function, FuncOp):
        raise HopcError(f"the module has no function @{name}")
    return function


def device_of(args: Sequence[object]) -> str:
    """The device type of the first tensor in ``args``; the CPU where there is none."""
    for arg in args:
        if isinstance(arg, torch.Tensor):
            return arg.device.type
    return "cpu"


EXECUTORS: dict[str, Executor] = {e.name: e for e in (
    InterpreterExecutor(), PlannedExecutor(), CompiledExecutor("aten", frozenset()),
    CompiledExecutor("triton", frozenset({"cpu", "cuda"})), CompiledExecutor("auto", frozenset({"cuda"})))}
DEFAULT_EXECUTOR = "auto"


def executor_named(name: str) -> Executor:
    """The executor called ``name``; a HopcError lists the known ones otherwise."""
    if name not in EXECUTORS:
        raise HopcError(f"unknown executor '{name}'; hopc has {', '.join(sorted(EXECUTORS))}")
    return EXECUTORS[name]
