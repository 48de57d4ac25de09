"""Tracing a program without HOPs straight to ATen, without Dynamo.

Note [direct capture]
~~~~~~~~~~~~~~~~~~~~~
Most of the time of a capture through Dynamo (``dynamo_capture``) goes to
Dynamo itself: symbolic bytecode execution, and guards that a capture never
checks. A program whose sizes are all static and that calls no HOP needs none
of it: ``make_fx`` in pre-dispatch mode, run directly on the program on fake
inputs (as non-strict ``torch.export`` does), records the same ATen graph as
``lower_to_aten`` makes of Dynamo's graph (in-place ops, views and mutation
of inputs and buffers as they ran; composite ops whole), with each parameter,
buffer and tensor constant the program reads as an attribute of the graph.

``direct_graph`` tries this route first and gives up, leaving the capture to
Dynamo, in three cases:

- the program enters a HOP. A HOP must stay a region, and outside Dynamo
  ``wrap``, ``checkpoint`` and ``nested_compile_region`` run their bodies
  inline, so every HOP entry point (its kind's ``EAGER_ENTRY_POINTS``, in
  ``hopc.fx_import.capture_rules``) is replaced, for the duration of the
  trace, by one that raises ``NeedsDynamo`` (``_hop_entry_points``); so is
  the entry to a ``torch.func.grad`` or ``jvp`` level, whose functorch
  wrappers the direct trace cannot see (Note [functorch grad regions]),
  and so is ``torch.autograd.Function.apply``, whose backward only Dynamo's
  graph keeps (Note [kept autograd functions]);
- the trace fails (data-dependent control flow, a bug in
  the program): Dynamo reports the construct at the user's line;
- the trace made a shape symbol (an unbacked size from ``.item()`` or
  ``nonzero``): Dynamo's route records its constraints as runtime asserts.

Sizes named dynamic by ``dynamic_shapes`` take the Dynamo route from the
start, which solves their constraints. Like non-strict ``torch.export``, the
direct route runs the program's Python once, so a program that gives up has
run its Python side effects once more than Dynamo's route alone would.

``make_fx`` records a node's Python stack only below a ``forward`` frame and
without columns, so the trace records its own (``_user_stack``): the
innermost frame outside PyTorch and hopc, with its columns, in the traceback
format Dynamo uses, which ``locations`` reads.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import sys
import traceback
from collections.abc import Callable, Iterator
from unittest import mock

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import PythonKeyTracer, make_fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from hopc.frontend.constant_hoisting import hoist_constants
from hopc.frontend.dynamo_capture import input_names, lift_tensor_attributes
from hopc.frontend.module_import import EntryArgument
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, EntryPoint
from hopc.ir.diagnostics import is_hopc_source, is_torch_source

_FUNCTORCH_TRANSFORMS = importlib.import_module("torch._functorch.eager_transforms")
"""The module itself (``torch._functorch`` exports functions of the same name)."""

_FUNCTORCH_LEVELS: tuple[EntryPoint, ...] = ((_FUNCTORCH_TRANSFORMS, "_grad_increment_nesting"),
                                             (_FUNCTORCH_TRANSFORMS, "_jvp_increment_nesting"))
"""Where ``torch.func.grad`` and ``jvp`` enter their level: no HOP's, so listed here (Note
[functorch grad regions])."""


class NeedsDynamo(Exception):
    """The program calls a HOP, which only the Dynamo route keeps as a region."""


def direct_graph(program: Callable, args: tuple, kwargs: dict
                 ) -> tuple[torch.fx.GraphModule, list[EntryArgument], FakeTensorMode] | None:
    """The ATen graph of ``program(*args, **kwargs)``, its entry arguments and fake mode.

    None when the program needs Dynamo (Note [direct capture]). The graph has
    one placeholder per entry argument: the tensor leaves of ``(args,
    kwargs)``, then the tensors it reads as attributes.
    """
    leaves, spec = pytree.tree_flatten((args, kwargs))
    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]

    def flat_program(*tensors: torch.Tensor) -> list[object]:
        values = list(leaves)
        for position, tensor in zip(positions, tensors, strict=True):
            values[position] = tensor
        flat_args, flat_kwargs = pytree.tree_unflatten(values, spec)
        return pytree.tree_leaves(program(*flat_args, **flat_kwargs))

    fake_mode = FakeTensorMode(shape_env=ShapeEnv(), allow_non_fake_inputs=True)
    examples = [fake_mode.from_tensor(leaves[i], static_shapes=True) for i in positions]
    try:
        with _hop_entry_points(), enable_python_dispatcher(), fake_mode, mock.patch.object(
                PythonKeyTracer, "_filter_traceback_frames", _user_stack):
            graph_module = make_fx(flat_program, tracing_mode="real", pre_dispatch=True,
                                   record_stack_traces=True,
                                   _allow_non_fake_inputs=True)(*examples)
    except Exception:
        return None
    if fake_mode.shape_env.var_to_range or any(
            isinstance(node.target, torch._ops.HigherOrderOperator)
            for node in graph_module.graph.nodes):
        return None
    hoist_constants(graph_module)
    names = input_names(program, args, kwargs)
    arguments = [EntryArgument(None, names[i], example)
                 for i, example in zip(positions, examples, strict=True)]
    arguments += lift_tensor_attributes(graph_module, program, fake_mode)
    return graph_module, arguments, fake_mode


class _GiveUp:
    """Stands for a HOP entry point: calling it, or its ``apply``, raises ``NeedsDynamo``."""

    def __call__(self, *args: object, **kwargs: object) -> object:
        raise NeedsDynamo

    apply = __call__


_GIVE_UP = _GiveUp()


@contextlib.contextmanager
def _hop_entry_points() -> Iterator[None]:
    """Every way a program enters a HOP outside Dynamo raises ``NeedsDynamo``: the entry points
    each HOP kind registers (``EAGER_ENTRY_POINTS``), each once, and ``_FUNCTORCH_LEVELS``."""
    entry_points = [entry_point for kind in EAGER_ENTRY_POINTS
                    for entry_point in EAGER_ENTRY_POINTS.get(kind)()]
    with contextlib.ExitStack() as patches:
        for owner, name in dict.fromkeys([*entry_points, *_FUNCTORCH_LEVELS]):
            patches.enter_context(mock.patch.object(owner, name, _GIVE_UP))
        yield


def _user_stack(tracer: PythonKeyTracer, stack: traceback.StackSummary
                ) -> traceback.StackSummary:
    """The innermost frame outside PyTorch and hopc, with its columns (Note [direct capture])."""
    frame = sys._getframe(1)
    while frame is not None and (is_torch_source(frame.f_code.co_filename)
                                 or is_hopc_source(frame.f_code.co_filename)):
        frame = frame.f_back
    if frame is None:
        return traceback.StackSummary()
    code = frame.f_code
    _, end_line, start_column, end_column = next(
        itertools.islice(code.co_positions(), frame.f_lasti // 2, None))
    return traceback.StackSummary.from_list([traceback.FrameSummary(
        code.co_filename, frame.f_lineno, code.co_name, end_lineno=end_line,
        colno=start_column, end_colno=end_column)])
