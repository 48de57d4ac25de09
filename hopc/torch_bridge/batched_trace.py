"""Several functions traced in one ``make_fx`` run, each given back as the graph of its own trace.

Note [batched traces]
~~~~~~~~~~~~~~~~~~~~~
Each trace of ``hopc.torch_bridge.op_tracer.trace`` pays a fixed cost (a
``ShapeEnv``, a fake mode, ``make_fx``'s tracer and modes set up and torn
down: about 7 ms of a trivial trace on the development machine), which the
derivative traces of a module pay once per distinct op. ``trace_batch``
traces several functions in one ``make_fx`` run: one ``ShapeEnv`` and fake
mode, each function's symbols its own within them (``FakeShapes(beside=...)``),
each function called on its own placeholders in turn; and splits the graph
back, one per function: its placeholders, the nodes it owns, in order, its
outputs. A node is owned by the functions whose placeholders it reads
(directly or not) and those whose outputs read it; a function's nodes are
then exactly those of its own trace, an in-place op whose result nothing
reads included. A graph with a node owned by no function or by several
does not split, and the batch gives nothing.

A function's graph from the batch stands for its own trace only where
nothing in the batch could make them differ, so a function is left out
(None: its caller traces it alone, which reports its error located at its
op) where its trace raises (PyTorch rejects it, or it would install a guard:
Note [trace guards]) or leaves a runtime assertion no caller assumed (Note
[trace assertions]). Such a failure ends the run: the others (and the
function as its caller's ``retry`` replaces it, first) are traced again in
a fresh ``ShapeEnv``, so that no state of the failed trace stays in theirs.
Symbols of different functions never meet (each has its own torch symbols),
so what the ``ShapeEnv`` decides for one function is what its own
``ShapeEnv`` would have decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses.fake_tensor import unset_fake_temporarily
from torch.fx._lazy_graph_module import _make_graph_module
from torch.fx.experimental.proxy_tensor import make_fx

from hopc.ir.diagnostics import HopcError
from hopc.ir.types import SymIntType, TensorType
from hopc.torch_bridge.op_tracer import (
    DEFAULT_LIMITS,
    TracedFunction,
    TraceLimits,
    _timer,
    traced_scope,
    types_of,
)
from hopc.torch_bridge.torch_symbolic import FakeShapes, SymbolFacts


@dataclass(frozen=True)
class BatchedFunction:
    """One function of a batch, as ``trace`` would take it with ``pass_shapes``."""

    function: Callable[..., object]
    """``function(shapes, *tensors)``."""
    operand_types: Sequence[TensorType | SymIntType]
    requires_grad: Sequence[bool]
    symbols: Mapping[str, SymbolFacts]


Retry = Callable[[int, HopcError], BatchedFunction | None]
"""(a function's index, the error of its trace) -> the function to trace in its place, or None."""


def trace_batch(functions: Sequence[BatchedFunction], limits: TraceLimits = DEFAULT_LIMITS,
                retry: Retry = lambda index, error: None) -> list[TracedFunction | None]:
    """Each function's trace, from as few ``make_fx`` runs as the failures allow; None for a
    function the batch leaves out, and for a function left alone (Note [batched traces]).

    A function whose trace raises is traced in the next run (first) as ``retry`` replaces
    it, or left out; ``traced[i]`` is then the trace of the replacement.
    """
    functions = list(functions)
    traced: list[TracedFunction | None] = [None] * len(functions)
    remaining = list(range(len(functions)))
    while len(remaining) > 1:
        outcome = _trace_together([functions[i] for i in remaining], limits)
        if isinstance(outcome, tuple):
            failed, error = outcome
            index = remaining.pop(failed)
            replacement = retry(index, error)
            if replacement is not None:  # first, so that its next failure wastes no other's trace
                functions[index] = replacement
                remaining.insert(0, index)
            continue
        if outcome is not None:
            for index, function_trace in zip(remaining, outcome, strict=True):
                traced[index] = function_trace
        break
    return traced


def _trace_together(functions: Sequence[BatchedFunction], limits: TraceLimits
                    ) -> list[TracedFunction | None] | tuple[int, HopcError] | None:
    """One ``make_fx`` run of all ``functions``: each one's trace (None where a value it gives
    has no IR type), or the index of the first whose trace failed and its error, or None where
    the run failed outside every function or its graph does not split (Note [batched traces])."""
    first = FakeShapes(functions[0].symbols)
    shapes = [first, *(FakeShapes(f.symbols, beside=first) for f in functions[1:])]
    running: list[int | None] = [None]
    batch_limits = TraceLimits(limits.seconds * len(functions), limits.max_results)
    try:
        with traced_scope(first, "a batch of traces", None, batch_limits):
            inputs = [[own.fake_tensor(t, flag) if isinstance(t, TensorType) else own.size(t.value)
                       for t, flag in zip(f.operand_types, f.requires_grad, strict=True)]
                      for f, own in zip(functions, shapes, strict=True)]
            starts = [sum(len(i) for i in inputs[:index]) for index in range(len(inputs))]

            def together(*tensors: torch.Tensor) -> list[object]:
                outputs = []
                for index, (function, own) in enumerate(zip(functions, shapes, strict=True)):
                    running[0] = index
                    start = starts[index]
                    with _timer(limits.seconds):  # each function within the limit of its own trace
                        outputs.append(function.function(own, *tensors[start:start + len(inputs[index])]))
                running[0] = None
                return outputs

            with unset_fake_temporarily(), enable_python_dispatcher(), first.mode:
                graph = make_fx(together, tracing_mode="real", _allow_non_fake_inputs=True)(
                    *(tensor for own_inputs in inputs for tensor in own_inputs))
    except HopcError as error:
        failed = running[0] if running[0] is not None else _assuming(shapes)
        return None if failed is None else (failed, error)
    assuming = _assuming(shapes)
    if assuming is not None:
        return assuming, HopcError("its trace assumes what nothing checks at run time; Note [trace assertions]")
    placeholders = graph.graph.find_nodes(op="placeholder")
    outputs = graph.graph.output_node().args[0]
    own_placeholders = [placeholders[start:start + len(own_inputs)] for start, own_inputs in zip(starts, inputs)]
    owners = _owners(graph, own_placeholders, outputs)
    if owners is None:
        return None
    return [_own_trace(graph, index, own_placeholders[index], output, owners, own, limits)
            for index, (output, own) in enumerate(zip(outputs, shapes, strict=True))]


def _assuming(shapes: Sequence[FakeShapes]) -> int | None:
    """The first function whose trace left a runtime assertion no caller assumed (Note [trace
    assertions] in ``hopc.torch_bridge.op_tracer``)."""
    return next((index for index, own in enumerate(shapes) if own.unchecked_assertions()), None)


def _owners(graph: torch.fx.GraphModule, placeholders: Sequence[Sequence[torch.fx.Node]],
            outputs: Sequence[object]) -> dict[torch.fx.Node, int] | None:
    """The function each node of ``graph`` belongs to: the one whose placeholders it reads,
    directly or not, or whose outputs read it; None where a node belongs to no function or to
    several (Note [batched traces])."""
    origins: dict[torch.fx.Node, set[int]] = {}
    for index, own in enumerate(placeholders):
        for placeholder in own:
            origins[placeholder] = {index}
    for index, output in enumerate(outputs):
        for node in _reached(output):
            origins.setdefault(node, set()).add(index)
    for node in graph.graph.nodes:
        if node.op != "placeholder":
            origins.setdefault(node, set()).update(*(origins.get(i, set()) for i in node.all_input_nodes))
    owners = {}
    for node in graph.graph.nodes:
        if node.op == "output":
            continue
        if len(origins[node]) != 1:
            return None
        (owners[node],) = origins[node]
    return owners


def _own_trace(graph: torch.fx.GraphModule, index: int, placeholders: list[torch.fx.Node], output: object,
               owners: dict[torch.fx.Node, int], shapes: FakeShapes, limits: TraceLimits) -> TracedFunction | None:
    """The graph of function ``index`` of the batch, as its own trace gives it: its
    placeholders, every node it owns (those its outputs read, and those that read its
    placeholders: an in-place op whose result nothing reads), ``output``; its nodes named
    afresh. None where a value the trace gives has no IR type, or too many results."""
    split = torch.fx.Graph()
    copies: dict[torch.fx.Node, torch.fx.Node] = {}
    for position, placeholder in enumerate(placeholders):
        copies[placeholder] = split.placeholder(f"arg{position}_1")  # as make_fx names a function's arguments
        copies[placeholder].meta = dict(placeholder.meta)
    for node in graph.graph.nodes:
        if node.op not in ("placeholder", "output") and owners[node] == index:
            copies[node] = split.create_node(node.op, node.target, torch.fx.map_arg(node.args, copies.__getitem__),
                                             torch.fx.map_arg(node.kwargs, copies.__getitem__),
                                             _first_name(node.name), node.type)
            copies[node].meta = dict(node.meta)
    split_output = torch.fx.map_arg(output, copies.__getitem__)
    split.output(split_output)
    module = _make_graph_module(graph, split)  # lazy, as make_fx's: its code is generated where it runs
    values = pytree.tree_map(lambda n: n.meta.get("val") if isinstance(n, torch.fx.Node) else n,
                                          split_output)
    try:
        result_types = types_of(shapes, values, "a batched trace", None)
    except HopcError:
        return None
    if len(result_types) > limits.max_results:
        return None
    return TracedFunction(module, result_types, shapes)


def _reached(output: object) -> set[torch.fx.Node]:
    """The nodes ``output`` (a structure of nodes) reads, directly or not, and its own."""
    reached: set[torch.fx.Node] = set()
    pending = [node for node in pytree.tree_leaves(output) if isinstance(node, torch.fx.Node)]
    while pending:
        node = pending.pop()
        if node not in reached:
            reached.add(node)
            pending.extend(node.all_input_nodes)
    return reached


_NUMBERED = re.compile(r"_[0-9]+$")


def _first_name(name: str) -> str:
    """A node's name without the number the batch's graph gave it (``mm_3``: ``mm``), so that
    the split graph numbers its nodes afresh, as the function's own trace does."""
    return _NUMBERED.sub("", name)
