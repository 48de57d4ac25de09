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
- ``aten``: the function lowered to the kernel level (``lower_to_kernel``, with
  the executor's own ``LoweringOptions``)
  and generated as Python source calling ATen (Note [generated host code]
  in ``hopc.backend.host.codegen``), every kernel's ops inlined;
- ``triton``: the same host code, launching generated Triton kernels for the
  pointwise and reduction kernels (Triton's interpreter on the CPU);
- ``auto``: ``triton`` for CUDA tensors, ``aten`` for CPU ones;
- ``cuda``: ``triton`` on CUDA tensors only, its launches replayed as CUDA
  graphs, one per size (``form-cuda-graphs``, Note [graph recordings] in
  ``hopc.backend.cuda.graphs``), its small conds as selects.

Note [compiled executors]
~~~~~~~~~~~~~~~~~~~~~~~~~
The compiled executors run kernel-level code, which is made for one device
(``kernel.device``: its buffers are allocated there) under the lowering
options the executor states (``Executor.lowering``: what its code may assume),
and a functional module does not say where its tensors will be. A module is
lowered once per device and lowering options (``lowered``, cached by the
module's identity: a training call prepares its forward and backward entries
from one module; ``hopc.driver`` lowers for the device it compiles for before
the executor prepares, so that its stages are printed and reported), and the
function prepared for the CPU at once, so that an op without a lowering is an
error when the function is prepared. The first call reads the device of its
first tensor argument and prepares the function for that device where it is
another; every later call runs what the first chose (Dynamo guards the device
of what it compiles). A module that is kernel level already (it has
``kernel.device``) runs as it is, on its own device. What is prepared is a
``GeneratedCall``; a caller that knows the device and has grad mode off for
good (a Dynamo graph compiled so: Dynamo guards both) may take the generated
function itself (``GeneratedCall.for_device``) and call it with the
arguments, one Python call in all (Note [direct entry] in
``hopc.backend.runtime.module_call``).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from weakref import WeakKeyDictionary

from hopc.backend.runtime.generated_call import Generated, GeneratedCall
from hopc.ir.diagnostics import HopcError, location_of, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.dialects.func import FuncOp

Prepared = Callable[[Sequence[object]], list[object]]


@dataclass(frozen=True)
class LoweringOptions:
    """The options of the kernel-level stages (``hopc.backend.lowering``), which an executor
    states for itself (``Executor.lowering``): what its generated code may assume. Hashable:
    the lowering cache is keyed by them (Note [compiled executors])."""

    conds_as_selects: str = "auto"
    """Small pointwise conds as selects: ``auto`` (by device), ``always`` (a CUDA graph cannot
    read a predicate on the host), ``never`` (``CONDS_AS_SELECTS``, Note [conds as selects] in
    ``hopc.passes.convert_hop_to_kernel``)."""

    def __post_init__(self) -> None:
        if self.conds_as_selects not in _CONDS_AS_SELECTS_IN_USE:
            from hopc.passes.convert_hop_to_kernel import check_conds_as_selects  # the pass's own values

            check_conds_as_selects(self.conds_as_selects, "conds_as_selects")


_CONDS_AS_SELECTS_IN_USE = ("auto", "always", "never")
"""The values of ``conds_as_selects`` the pass takes (``CONDS_AS_SELECTS``), accepted without
importing it, so that making options imports no pass (Note [imports of a cache hit] in
``hopc.frontend.dynamo_backend``); any other value is the pass's to judge."""


DEFAULT_LOWERING = LoweringOptions()

CUDA_GRAPH_LOWERING = LoweringOptions(conds_as_selects="always")
"""The ``cuda`` executor's own options: a small cond as a select keeps its segment whole."""


class Executor(Protocol):
    name: str
    lowering: LoweringOptions | None
    """The options of the kernel-level stages the executor's code needs (Note [compiled
    executors]); ``None`` for an executor that runs the functional level itself."""

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        """``function`` of ``module`` ready to run: ``args -> results``."""
        ...


class InterpreterExecutor:
    """The checked reference interpreter."""

    name = "interpreter"
    lowering = None

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.interpreter import run_module

        name = function.sym_name.data
        return lambda args: run_module(module, args, function=name)


class PlannedExecutor:
    """The reference semantics, planned once per function and run unchecked."""

    name = "planned"
    lowering = None

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.runtime.plan import plan_function

        return plan_function(function)


class CompiledExecutor:
    """Generated host code over the kernel level (Note [compiled executors]).

    ``triton_on`` is the devices whose pointwise and reduction launches run
    generated Triton kernels; elsewhere every kernel's ATen ops run inlined.
    ``lowering`` is the kernel-level options its code is generated for.
    """

    def __init__(self, name: str, triton_on: frozenset[str], lowering: LoweringOptions):
        self.name = name
        self.triton_on = triton_on
        self.lowering = lowering

    def with_lowering(self, lowering: LoweringOptions) -> CompiledExecutor:
        """This executor generating code for ``lowering`` instead of its own options."""
        return CompiledExecutor(self.name, self.triton_on, lowering)

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.dialects.kernel import DEVICE_ATTRIBUTE, module_device

        name = function.sym_name.data
        if DEVICE_ATTRIBUTE in module.attributes:
            generated = self._generate(module, name, module_device(module))
            return GeneratedCall(lambda device: generated, generated)
        prepared = {"cpu": self._generate(lowered(module, "cpu", self.lowering), name, "cpu")}

        def for_device(device: str) -> Generated:
            if device not in prepared:
                prepared[device] = self._generate(lowered(module, device, self.lowering), name, device)
            return prepared[device]

        return GeneratedCall(for_device)

    def _generate(self, module: ModuleOp, name: str, device: str) -> Generated:
        from hopc.backend.host.generated_function import generate_function
        from hopc.backend.host.lowerings.kernel import lower_launch_inline

        function = _function_named(module, name)
        if device in self.triton_on:
            from hopc.backend.host.ops_triton import lower_launch_triton

            return generate_function(function, lower_launch_triton, device).compile()
        return generate_function(function, lower_launch_inline, device, first_write_allocates=True).compile()


class CudaGraphExecutor:
    """Generated host code over the kernel level for CUDA, Triton kernels launched on the
    current stream and extern ops through ATen, every run of launches between two host syncs
    replayed as a CUDA graph (Note [cuda graph segments] in ``hopc.passes.form_cuda_graphs``).
    CUDA tensors only: a CPU call is a HopcError at the function."""

    name = "cuda"

    def __init__(self, lowering: LoweringOptions = CUDA_GRAPH_LOWERING):
        self.lowering = lowering

    def with_lowering(self, lowering: LoweringOptions) -> CudaGraphExecutor:
        """This executor generating code for ``lowering`` instead of its own options."""
        return CudaGraphExecutor(lowering)

    def prepare(self, module: ModuleOp, function: FuncOp) -> Prepared:
        from hopc.backend.host.generated_function import generate_function
        from hopc.backend.host.ops_triton import lower_launch_triton
        from hopc.dialects.kernel import DEVICE_ATTRIBUTE, module_device
        from hopc.passes.form_cuda_graphs import form_cuda_graphs

        if DEVICE_ATTRIBUTE in module.attributes:
            _check_cuda(function, module_device(module))
        generated: list[Generated] = []

        def for_device(device: str) -> Generated:
            _check_cuda(function, device)
            if not generated:
                kernel_module = module if DEVICE_ATTRIBUTE in module.attributes else lowered(module, "cuda",
                                                                                             self.lowering)
                formed = form_cuda_graphs(kernel_module.clone())
                generated.append(generate_function(_function_named(formed, function.sym_name.data),
                                                   lower_launch_triton, "cuda").compile())
            return generated[0]

        return GeneratedCall(for_device)


def _check_cuda(function: FuncOp, device: str) -> None:
    """A HopcError for another device than CUDA, located at the caller's line (or else at the
    function's first located op)."""
    if device != "cuda":
        location = user_location(traceback.extract_stack()) or next(
            (found for op in function.walk() if (found := location_of(op)) is not None), None)
        raise HopcError(f"executor 'cuda' runs CUDA tensors only, and these are on '{device}': "
                        "move them with .cuda(), or use executor 'auto'", location)


Lowering = Callable[["ModuleOp", str, LoweringOptions], "ModuleOp"]
"""``(module, device, options) -> its kernel-level copy`` (``lower_to_kernel``'s signature)."""

_LOWERED: WeakKeyDictionary[ModuleOp, dict[tuple[str, LoweringOptions], ModuleOp]] = WeakKeyDictionary()
"""Each functional module -> its kernel-level copy per device and lowering options (Note [compiled
executors]): IR alone, living as long as the module; the tensors converted from its constants
belong to the code generated from it (Note [converted constants] in ``hopc.backend.interpreters.hop``)."""


def lowered(module: ModuleOp, device: str, options: LoweringOptions, lower: Lowering | None = None) -> ModuleOp:
    """The kernel-level copy of ``module`` for ``device`` and ``options``, made once by ``lower``
    (``lower_to_kernel`` unless given: the driver passes its own, which prints and reports the stages)."""
    per_key = _LOWERED.setdefault(module, {})
    key = (device, options)
    if key not in per_key:
        if lower is None:
            from hopc.backend.lowering import lower_to_kernel as lower
        per_key[key] = lower(module, device, options)
    return per_key[key]


def _function_named(module: ModuleOp, name: str) -> FuncOp:
    from xdsl.dialects.func import FuncOp
    from xdsl.traits import SymbolTable

    function = SymbolTable.lookup_symbol(module, name)
    if not isinstance(function, FuncOp):
        raise HopcError(f"the module has no function @{name}")
    return function


EXECUTORS: dict[str, Executor] = {e.name: e for e in (
    InterpreterExecutor(), PlannedExecutor(), CompiledExecutor("aten", frozenset(), DEFAULT_LOWERING),
    CompiledExecutor("triton", frozenset({"cpu", "cuda"}), DEFAULT_LOWERING),
    CompiledExecutor("auto", frozenset({"cuda"}), DEFAULT_LOWERING), CudaGraphExecutor())}
DEFAULT_EXECUTOR = "auto"
CPU_EXECUTORS: tuple[str, ...] = tuple(name for name in EXECUTORS if name != CudaGraphExecutor.name)
"""The executors that run CPU tensors: every one but ``cuda`` (what tests run without a GPU)."""


def executor_named(name: str | Executor) -> Executor:
    """The executor called ``name``; a HopcError lists the known ones otherwise. An executor
    given itself is returned as it is (the driver's, with lowering options of its own)."""
    if not isinstance(name, str):
        return name
    if name not in EXECUTORS:
        raise HopcError(f"unknown executor '{name}'; hopc has {', '.join(sorted(EXECUTORS))}")
    return EXECUTORS[name]
