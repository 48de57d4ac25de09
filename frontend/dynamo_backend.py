"""``torch.compile(model, backend="hopc")``: hopc as a Dynamo backend.

Dynamo calls ``hopc_backend(graph_module, example_inputs)`` once per graph it
captures (per guard set: a new shape, dtype or device, a changed Python
scalar, or, after a size changes, the same graph with that size symbolic).
The backend lowers the graph like ``hopc.capture`` does (Note [pre-dispatch
capture]) and imports it to a captured-level module; the driver
(``hopc.driver.compile_captured``) runs every stage after that (Note [compile
stages]) and returns a ``ModuleCall`` that runs the result and returns
outputs that alias inputs as eager does (Note [aliased outputs]), or the
generated function that call would run where the call adds nothing to it and
grad mode is off (Note [direct entry]). ``torch.compile(model, backend="hopc",
options={...})`` passes the fields of a ``hopc.CompileOptions``.
A graph that needs gradients (grad mode on, and an input or parameter that
requires grad: Dynamo guards both) is differentiated too: its entry marks
those arguments ``{hop.requires_grad}``, the ``autograd`` pass
(``hopc.passes.autograd.differentiate``) splits the functional module into a
forward and a backward, and a ``TrainingCall`` runs them under PyTorch's
autograd (Note [training call]). This runs inside Dynamo's compile of the
frame, so a derivative whose trace guards on a size is traced in the frame's
``ShapeEnv`` and its guards join the frame's, which Dynamo builds after the
backend returns (Note [derivatives in a frame] in
``hopc.passes.autograd.derivatives``).
Dynamo supplies guards, recompilation, automatic dynamic shapes and the
program's Python around the graph; the graph's placeholders are already the
tensors (and symbolic sizes) the module takes, parameters and buffers
included, in Dynamo's order.

Note [imports of a cache hit]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A process's first call of a compiled program pays for every module it
imports (``bench/compile_time.py --warm``, issue 25), and where the compile
cache holds a graph's entry, hopc's part of that call up to the entry is to
make the options, name the graph's arguments and key the graph. So what runs
up to the key imports no xDSL and none of hopc's IR machinery (no dialect,
pass or importer): ``hopc.compile``'s ``CompiledProgram`` and Dynamo's frame
callback around it, and here ``compile_options``, ``graph_fake_mode``,
``_graph_arguments``, the lifted tensor attributes, ``graph_cache_slot`` and
``_check_gradients_can_be_given``, and then loading the slot's executable
entry, a call made again without the IR (Note [executable entries] in
``hopc.compile_cache``). The modules they read
(``hopc.compile_options``, ``hopc.frontend.entry_arguments``,
``hopc.backend.runtime.executors``, ``hopc.ir.diagnostics``,
``hopc.compile_cache``) name xDSL's types in annotations only and import it
in the functions that handle ops. The driver, the capture and the importer
are imported in ``graph_call`` past the key. ``tests/test_compile_imports.py``
runs those steps on a Dynamo graph in a fresh process and checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import time
import traceback
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import torch
import torch._guards
import torch.fx
from torch._subclasses.fake_tensor import FakeTensor
from torch.multiprocessing.reductions import StorageWeakRef

from hopc.backend.runtime.generated_call import device_of
from hopc.compile_options import CompileOptions, compile_options
from hopc.frontend.dynamo_capture import graph_fake_mode, lift_tensor_attributes
from hopc.frontend.dynamo_graph_key import graph_cache_slot
from hopc.frontend.entry_arguments import BUFFER, PARAMETER, EntryArgument
from hopc.ir.diagnostics import HopcError, is_hopc_source, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.backend.runtime.generated_call import Generated
    from hopc.backend.runtime.module_call import ModuleCall
    from hopc.backend.runtime.output_aliases import OutputAliases
    from hopc.backend.runtime.training_call import TrainingCall
    from hopc.driver import Frame
    from hopc.driver_log import FrameReports
    from hopc.frontend.freezing import FrozenCall

_SOURCE_PART = re.compile(r"\['([^']*)'\]|\.(\w+)|\[(\d+)\]")
_SOURCE_NOISE = frozenset({"self", "_modules", "_parameters", "_buffers", "size", "()"})


def _source_name(source: object, fallback: str) -> str:
    """``L['self']._modules['lin']._parameters['weight']`` -> ``lin.weight``."""
    if source is None:
        return fallback
    parts = ["".join(match) for match in _SOURCE_PART.findall(source.name)]
    kept = [part for part in parts if part not in _SOURCE_NOISE]
    return ".".join(kept) or fallback


def _graph_arguments(graph_module: torch.fx.GraphModule) -> list[EntryArgument]:
    """One entry argument per placeholder, with its role and name from Dynamo's source.

    With grad mode on, a tensor whose real value requires grad is marked
    ``requires_grad`` (the fake one may have started to during tracing, when
    the program wrote such a value into it).
    """
    grad_mode = torch.is_grad_enabled()
    arguments = []
    for placeholder in graph_module.graph.find_nodes(op="placeholder"):
        graph_argument = placeholder.meta.get("grapharg")
        source = getattr(graph_argument, "source", None)
        name = _source_name(source, placeholder.name)
        example = placeholder.meta["example_value"]
        real = getattr(graph_argument, "example", None)
        role = None
        if isinstance(real, torch.nn.Parameter):
            role = PARAMETER
        elif source is not None and "_buffers[" in source.name:
            role = BUFFER
        requires_grad = real.requires_grad if isinstance(real, torch.Tensor) else \
            isinstance(example, torch.Tensor) and example.requires_grad
        arguments.append(EntryArgument(role, name, example, requires_grad=grad_mode and requires_grad))
    return arguments


def _lifted_arguments(lifted: list[EntryArgument]) -> list[EntryArgument]:
    """The tensors lifted from a graph's attributes, marked ``requires_grad`` as ``_graph_arguments`` marks."""
    grad_mode = torch.is_grad_enabled()
    return [dataclasses.replace(a, requires_grad=grad_mode and a.value is not None and a.value.requires_grad)
            for a in lifted]


def hopc_backend(graph_module: torch.fx.GraphModule, example_inputs: list, *,
                 options: CompileOptions | Mapping[str, object] | None = None,
                 reports: FrameReports | None = None) -> Generated | ModuleCall | TrainingCall | FrozenCall:
    """Dynamo backend: ``graph_call``'s call of Dynamo's graph, or where it is a ``ModuleCall``
    its direct entry for the device of ``example_inputs`` (Note [direct entry] in
    ``hopc.backend.runtime.module_call``: Dynamo guards the device and grad mode). ``options``
    are ``hopc.compile``'s, or the dict ``torch.compile(..., options=...)`` passes; ``reports``
    is where a frame's report waits for its guards (Note [stage log] in ``hopc.driver_log``)."""
    from hopc.backend.runtime.module_call import ModuleCall

    chosen = compile_options(options)
    call = graph_call(graph_module, example_inputs, chosen, reports)
    return call.direct_entry(device_of(example_inputs)) if isinstance(call, ModuleCall) else call


def graph_call(graph_module: torch.fx.GraphModule, example_inputs: list, options: CompileOptions,
               reports: FrameReports | None = None) -> ModuleCall | TrainingCall | FrozenCall:
    """Dynamo's graph -> a captured-level module, compiled by the driver into a call of it.

    The graph is retraced in the fake mode Dynamo traced it in (the fake
    values on its placeholders), not the fresh one Dynamo hands backends, so
    that sizes keep Dynamo's symbols; ``example_inputs`` give only the device.
    Whether the graph needs gradients is decided here, once: Dynamo guards
    grad mode and each input's ``requires_grad``, so the compiled call need
    not check them. With ``options.freeze`` it is captured for inference,
    under ``torch.no_grad()`` (Note [freezing is inference] in ``hopc.frontend.freezing``).

    The compile cache is asked first by the graph itself (Note [graph keys]
    in ``hopc.frontend.dynamo_graph_key``): a hit captures nothing, and where
    the slot keeps the compiled call, runs no stage (Note [executable entries]
    in ``hopc.compile_cache``).

    Raises ``HopcError`` (located at the user's line) for what hopc cannot
    import or differentiate; Dynamo reports it as a backend failure.
    """
    with torch.no_grad() if options.freeze else contextlib.nullcontext():
        start = time.perf_counter()
        fake_mode = graph_fake_mode(graph_module)
        arguments = _graph_arguments(graph_module)
        _check_no_tensor_subclass(arguments)
        lifted = _lifted_arguments(lift_tensor_attributes(graph_module, None, fake_mode))
        device = device_of(example_inputs)
        graph_slot = graph_cache_slot(graph_module, arguments + lifted, options, device)
        stores_calls = graph_slot is not None and _stores_calls(options)
        if graph_slot is not None:
            _check_gradients_can_be_given(arguments + lifted)
            loaded = graph_slot.load_call([a.value for a in lifted]) if stores_calls else None
            if loaded is not None:
                return loaded
        # the driver and the capture, past the key (Note [imports of a cache hit])
        from hopc.driver import Frame, compile_cached, compile_captured
        from hopc.driver_log import shape_guard_lines
        from hopc.frontend.aten_lowering import lower_to_aten
        from hopc.frontend.module_import import import_module
        from hopc.frontend.no_grad_spans import detach_no_grad_spans
        from hopc.frontend.output_views import output_aliases
        from hopc.fx_import.shape_symbols import ShapeSymbols

        def frame(trailing: list[EntryArgument], aliases: OutputAliases | None) -> Frame:
            """The frame of the graph whose module takes ``trailing`` after the placeholders."""
            return Frame(_frame_title(), device, tuple(a.value for a in trailing), aliases,
                         check_grad=False, check_functional=functools.partial(_check_functional, arguments + trailing),
                         freezes_at_call=True, capture_seconds=time.perf_counter() - start,
                         guards=shape_guard_lines(fake_mode.shape_env) if reports is None else reports)

        if graph_slot is not None:
            cached = compile_cached(graph_slot, options, frame(lifted, None))
            if cached is not None:
                if stores_calls:
                    graph_slot.store_call(cached, device)
                return cached
        graph_module.recompile()
        aten_graph = lower_to_aten(graph_module, [a.example for a in arguments + lifted], fake_mode)
        aliases = output_aliases(aten_graph)  # before hopc's own detaches (Note [no-grad spans])
        if any(a.requires_grad for a in arguments + lifted):
            detach_no_grad_spans(aten_graph, [a.requires_grad for a in arguments + lifted])
        constants = _lifted_arguments(lift_tensor_attributes(aten_graph, None, fake_mode))
        entry_arguments = arguments + lifted + constants
        _check_gradients_can_be_given(entry_arguments)
        module = import_module(aten_graph, entry_arguments, ShapeSymbols(fake_mode.shape_env))
        # a hit's frame has no aliases and no constants of the retrace (Note [graph keys])
        stored_by_graph = graph_slot if not aliases and not constants else None
        call = compile_captured(module, options, frame(lifted + constants, aliases), stored_by_graph)
        if stores_calls and not constants:  # a call restores its outputs' strides itself
            graph_slot.store_call(call, device)
        return call


def _stores_calls(options: CompileOptions) -> bool:
    """Whether a graph's slot keeps its compiled call (Note [executable entries] in
    ``hopc.compile_cache``): not for a frozen call, which freezes at its first call, nor where the
    stages are to be shown (a report, printed IR or ``HOPC_LOGS``), which a loaded call skips."""
    from hopc.driver_log import hopc_logs

    return not (options.freeze or options.report_dir is not None or options.print_ir_after_all or hopc_logs())


_DYNAMO_SOURCES = os.path.dirname(torch._dynamo.__file__) + os.sep


def _frame_title() -> str:
    """The frame Dynamo compiles now, ``forward of model.py:12 (graph 0/0)``.

    Dynamo lists the frame's code first among the codes it traced, then each
    function it inlined once done with it; where the frame is a wrapper of
    Dynamo's or hopc's (a module's compiled ``forward``), the function the
    wrapper calls is the last one done.
    """
    context = torch._guards.TracingContext.try_get()
    codes = context.traced_code if context is not None else []
    own = [code for code in codes if not _is_wrapper(code.co_filename)]
    code = codes[0] if codes and not _is_wrapper(codes[0].co_filename) else own[-1] if own else None
    where = "a graph" if code is None else \
        f"{code.co_name} of {os.path.basename(code.co_filename)}:{code.co_firstlineno}"
    return f"{where} (graph {torch._guards.CompileContext.current_compile_id()})"


def _is_wrapper(filename: str) -> bool:
    return filename.startswith(_DYNAMO_SOURCES) or is_hopc_source(filename)


def _check_functional(arguments: list[EntryArgument], functional: ModuleOp) -> None:
    """What the functional module of a graph on ``arguments`` says hopc cannot run as eager does."""
    from hopc.dialects.hop_module_structure import entry_signature

    changed = entry_signature(functional).copy_back.values()
    _check_no_mutated_input_shares_memory(changed, arguments)
    if any(a.requires_grad for a in arguments):
        _check_changed_inputs_take_no_gradient(changed, arguments)


def _check_no_tensor_subclass(arguments: list[EntryArgument]) -> None:
    """Raises when an input is a tensor subclass that Dynamo passes into the graph as itself.

    Dynamo inlines a ``__torch_function__`` subclass (the graph sees plain
    tensors), but passes a traceable ``__torch_dispatch__`` wrapper subclass
    (``TwoTensor``) through as a subclass of fake tensors, which hopc does not
    import (yet).
    """
    for argument in arguments:
        example = argument.example
        if isinstance(example, torch.Tensor) and not isinstance(example, FakeTensor):
            raise HopcError(f"unsupported: tensor subclass {type(example).__name__} as an input "
                            f"('{argument.name}')", user_location(traceback.extract_stack()))


def _check_gradients_can_be_given(arguments: list[EntryArgument]) -> None:
    """Raises when a tensor that requires grad is neither a user input nor a parameter (a buffer, a constant)."""
    for argument in arguments:
        if argument.requires_grad and argument.role not in (None, PARAMETER):
            raise HopcError(f"unsupported: the {argument.role.removeprefix('hop.')} "
                            f"'{argument.name}' requires grad; hopc differentiates user inputs "
                            "and parameters", user_location(traceback.extract_stack()))


def _check_changed_inputs_take_no_gradient(changed_arguments: Iterable[int],
                                           arguments: list[EntryArgument]) -> None:
    """Raises when the program writes a value that requires grad into an input that does not.

    Eager would then record the write, and the input would require grad after
    the call; the backward gives no gradient through the new value of an
    input that is not differentiated (Note [training call]), so that is
    refused (Dynamo's fake input then requires grad while the real one does
    not). A changed input that requires grad itself is differentiated.
    """
    for changed in sorted(set(changed_arguments)):
        argument = arguments[changed]
        if not argument.requires_grad and isinstance(argument.example, torch.Tensor) \
                and argument.example.requires_grad:
            raise HopcError(f"unsupported: the program writes a value that requires grad into "
                            f"'{argument.name}', which does not; hopc gives no gradient through it "
                            "(write a .detach()ed value)",
                            user_location(traceback.extract_stack()))


def _check_no_mutated_input_shares_memory(changed_arguments: Iterable[int],
                                          arguments: list[EntryArgument]) -> None:
    """Raises when an input the program changes overlaps another input (say ``f(t, t[0])``).

    The functional module computes each input's new value from the values the
    inputs had on entry, as if they did not overlap; where they do, eager's
    write through one would show through the other. Dynamo traces such calls
    separately (its fake inputs share storage exactly where the real ones do).
    """
    storages = [StorageWeakRef(a.example.untyped_storage()) if isinstance(a.example, torch.Tensor)
                else None for a in arguments]
    for changed in sorted(set(changed_arguments)):
        for index, storage in enumerate(storages):
            if index != changed and storage is not None and storage == storages[changed]:
                raise HopcError(
                    f"unsupported: the program changes its input '{arguments[changed].name}' in "
                    f"place, and input '{arguments[index].name}' shares its memory; pass "
                    "tensors with separate storage (a .clone() of one)",
                    user_location(traceback.extract_stack()))
