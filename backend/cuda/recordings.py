"""``recorded_graphs(compiled)``: the CUDA graphs recorded for what ``hopc.compile`` made.

A compiled program reaches its generated functions through Dynamo's cache:
the program's code object holds cache entries whose code calls a compiled
graph function (``__compiled_fn_*``, a global of the program's module), the
hopc backend's callable, which holds the prepared call, whose generated
function holds its ``GraphSegment``s in its closure. ``recorded_graphs``
follows that: the cache entries of the program's code (and of a module's
``forward``), then every object reachable from them and from ``compiled``
itself, except module namespaces, classes and tensors, collecting the
segments found. An executor's prepared call (``Executor.prepare``'s) may be
given directly.
"""

from __future__ import annotations

import gc
import types

import torch

from hopc.backend.cuda.graphs import GraphSegment, Recording


def recorded_graphs(compiled: object) -> list[Recording]:
    """Every recording of every segment reachable from ``compiled``, segment by segment, each
    in the order recorded."""
    return [recording for segment in _segments(compiled) for recording in segment.recordings.values()]


def _segments(compiled: object) -> list[GraphSegment]:
    found: list[GraphSegment] = []
    seen: set[int] = set()
    pending = [compiled, *_dynamo_compiled_functions(compiled)]
    while pending:
        item = pending.pop()
        if id(item) in seen or _opaque(item):
            continue
        seen.add(id(item))
        if isinstance(item, GraphSegment):
            found.append(item)
            continue
        pending.extend(gc.get_referents(item))
    return found


def _opaque(item: object) -> bool:
    """What the search does not enter: module namespaces (a function's globals), modules,
    classes, tensors and plain values."""
    if isinstance(item, dict):
        return "__builtins__" in item and "__name__" in item
    return isinstance(item, types.ModuleType | type | torch.Tensor | str | bytes | int | float | bool)


def _dynamo_compiled_functions(compiled: object) -> list[object]:
    """The compiled graph functions that Dynamo's cache entries for ``compiled``'s program call."""
    import torch._dynamo.eval_frame

    program = getattr(compiled, "_program", compiled)  # hopc.compile's CompiledProgram keeps its program
    functions = [program]
    if isinstance(program, torch.nn.Module):
        functions = [type(program).forward, type(program).__call__]
    found = []
    for function in functions:
        code, namespace = getattr(function, "__code__", None), getattr(function, "__globals__", None)
        if code is None or namespace is None:
            continue
        for entry in torch._dynamo.eval_frame._debug_get_cache_entry_list(code):
            found += [namespace[name] for name in entry.code.co_names
                      if name.startswith("__compiled_fn") and name in namespace]
    return found
