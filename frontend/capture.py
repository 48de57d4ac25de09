"""``hopc.capture``: a PyTorch program -> a module at the captured level.

    Dynamo (``dynamo_capture``)     torch-level graph, HOPs as calls with subgraphs
    -> ``lower_to_aten``            pre-dispatch ATen graph (Note [pre-dispatch capture])
    -> ``import_module``            hop-level IR, verified

The entry function takes the user's tensor inputs (the tensor leaves of
``(args, kwargs)`` in pytree order), then the parameters, buffers and tensor
constants the program reads; it returns the program's outputs, flattened.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp

from hopc.frontend.aten_lowering import lower_to_aten
from hopc.frontend.dynamo_capture import dynamo_graph, lift_tensor_attributes
from hopc.frontend.module_import import import_module
from hopc.frontend.shape_symbols import ShapeSymbols
from hopc.ir.verify import verify_module


def capture(program: Callable, args: tuple | list, kwargs: dict | None = None, *,
            dynamic_shapes: object = None) -> ModuleOp:
    """The captured-level module of ``program(*args, **kwargs)``.

    ``program`` is an ``nn.Module`` or a function; ``dynamic_shapes`` has
    ``torch.export``'s form (sizes not named there are static). Raises
    ``HopcError``, located at the user's line, for what cannot be captured.
    """
    graph_module, arguments, fake_mode = dynamo_graph(program, tuple(args), kwargs or {},
                                                      dynamic_shapes)
    aten_graph = lower_to_aten(graph_module, [a.example for a in arguments], fake_mode)
    arguments += lift_tensor_attributes(aten_graph, None, fake_mode)
    module = import_module(aten_graph, arguments, ShapeSymbols(fake_mode.shape_env))
    verify_module(module)
    return module
