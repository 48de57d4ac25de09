"""``hopc.capture``: a PyTorch program -> a module at the captured level.

    Dynamo (``dynamo_capture``)     torch-level graph, HOPs as calls with subgraphs
    -> ``lower_to_aten``            pre-dispatch ATen graph (Note [pre-dispatch capture])
    -> ``import_module``            hop-level IR, verified

A program with static sizes and no HOP skips Dynamo: ``direct_graph`` traces
it to the same pre-dispatch ATen graph directly (Note [direct capture]).

The entry function takes the user's tensor inputs (the tensor leaves of
``(args, kwargs)`` in pytree order), then the parameters, buffers and tensor
constants the program reads; it returns the program's outputs, flattened.
With ``weights=True`` the parameters and buffers carry their values, which
``hopc-opt --freeze`` folds (Note [captured weights] in
``hopc.frontend.module_import``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode
from xdsl.dialects.builtin import ModuleOp

from hopc.dialects.verify import verify_module
from hopc.frontend.aten_lowering import lower_to_aten
from hopc.frontend.compile_session import compile_session
from hopc.frontend.direct_capture import direct_graph
from hopc.frontend.dynamo_capture import dynamo_graph, lift_tensor_attributes
from hopc.frontend.module_import import EntryArgument, import_module
from hopc.fx_import.shape_symbols import ShapeSymbols
from hopc.ir.diagnostics import HopcError


def capture(program: Callable, args: tuple | list, kwargs: dict | None = None, *,
            dynamic_shapes: object = None, weights: bool = False) -> ModuleOp:
    """The captured-level module of ``program(*args, **kwargs)``.

    ``program`` is an ``nn.Module`` or a function; ``dynamic_shapes`` has
    ``torch.export``'s form (sizes not named there are static); with
    ``weights``, each parameter and buffer carries a copy of its current
    value as a ``dense_resource`` (Note [captured weights] in
    ``hopc.frontend.module_import``). Raises ``HopcError``, located at the
    user's line, for what cannot be captured. Runs as a compile session (Note
    [compile session across threads] in ``hopc.frontend.compile_session``).
    """
    with compile_session():
        return _captured(program, tuple(args), kwargs or {}, dynamic_shapes, weights)


def _captured(program: Callable, args: tuple, kwargs: dict, dynamic_shapes: object,
              weights: bool) -> ModuleOp:
    if dynamic_shapes is None:
        direct = direct_graph(program, args, kwargs)
        if direct is not None:
            with contextlib.suppress(HopcError):  # the Dynamo route reports it, located
                return _verified_module(*direct, weights)
    graph_module, arguments, fake_mode = dynamo_graph(program, args, kwargs, dynamic_shapes)
    aten_graph = lower_to_aten(graph_module, [a.example for a in arguments], fake_mode)
    arguments += lift_tensor_attributes(aten_graph, None, fake_mode)
    return _verified_module(aten_graph, arguments, fake_mode, weights)


def _verified_module(aten_graph: torch.fx.GraphModule, arguments: list[EntryArgument],
                     fake_mode: FakeTensorMode, weights: bool) -> ModuleOp:
    module = import_module(aten_graph, arguments, ShapeSymbols(fake_mode.shape_env), weights=weights)
    verify_module(module)
    return module
