"""``torch.compile(model, backend="hopc")``: hopc as a Dynamo backend.

Dynamo calls ``hopc_backend(graph_module, example_inputs)`` once per graph it
captures (per guard set: a new shape, dtype or device, a changed Python
scalar, or, after a size changes, the same graph with that size symbolic).
The backend lowers the graph like ``hopc.capture`` does (Note [pre-dispatch
capture]), imports it to a captured-level module, runs hopc's pass pipeline
(``hopc.passes.pipeline``) and returns a ``ModuleCall`` that runs the result
and returns outputs that alias inputs as eager does (Note [aliased outputs]).
Dynamo supplies guards, recompilation, automatic dynamic shapes and the
program's Python around the graph; the graph's placeholders are already the
tensors (and symbolic sizes) the module takes, parameters and buffers
included, in Dynamo's order.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Iterable

import torch
import torch.fx
from torch.multiprocessing.reductions import StorageWeakRef

from hopc.backend.runtime.executors import DEFAULT_EXECUTOR
from hopc.backend.runtime.module_call import ModuleCall, gradients_unsupported, needs_gradients
from hopc.backend.runtime.output_aliases import OutputAliases
from hopc.frontend.aten_lowering import lower_to_aten
from hopc.frontend.dynamo_capture import graph_fake_mode, lift_tensor_attributes
from hopc.frontend.errors import user_location
from hopc.frontend.module_import import BUFFER, PARAMETER, EntryArgument, import_module
from hopc.frontend.shape_symbols import ShapeSymbols
from hopc.ir.diagnostics import HopcError
from hopc.ir.verify import verify_module
from hopc.passes.pipeline import run_pipeline

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
    """One entry argument per placeholder, with its role and name from Dynamo's source."""
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
        arguments.append(EntryArgument(role, name, example))
    return arguments


def hopc_backend(graph_module: torch.fx.GraphModule, example_inputs: list, *,
                 executor: str = DEFAULT_EXECUTOR) -> ModuleCall:
    """Dynamo backend: Dynamo's graph -> a captured-level module run by hopc's ``executor``.

    The graph is retraced in the fake mode Dynamo traced it in (the fake
    values on its placeholders), not the fresh one Dynamo hands backends, so
    that sizes keep Dynamo's symbols; ``example_inputs`` are not needed.

    Raises ``HopcError`` (located at the user's line) for what hopc cannot
    import, and for a graph that needs gradients (Dynamo guards grad mode and
    each input's ``requires_grad``, so the compiled call need not check them);
    Dynamo reports it as a backend failure.
    """
    fake_mode = graph_fake_mode(graph_module)
    arguments = _graph_arguments(graph_module)
    aliases = OutputAliases(graph_module)
    lifted = lift_tensor_attributes(graph_module, None, fake_mode)
    graph_module.recompile()
    aten_graph = lower_to_aten(graph_module, [a.example for a in arguments + lifted], fake_mode)
    constants = lift_tensor_attributes(aten_graph, None, fake_mode)
    module = import_module(aten_graph, arguments + lifted + constants,
                           ShapeSymbols(fake_mode.shape_env))
    verify_module(module)
    trailing = [a.value for a in lifted + constants]
    if needs_gradients([a.example for a in arguments] + trailing):
        raise gradients_unsupported()
    call = ModuleCall(run_pipeline(module, verify_each=False), trailing, aliases, executor=executor,
                      check_grad=False)
    _check_no_mutated_input_shares_memory(call.signature.copy_back.values(),
                                          arguments + lifted + constants)
    return call


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
