"""``record_function`` ranges in a traced graph -> the ``profiler`` dialect.

Dynamo records ``with torch.profiler.record_function(name, args):`` (with
``capture_profiler_record_function``, which ``hopc.compile`` and
``hopc.capture`` set) as two calls of PyTorch's ``profiler`` operators, which
ATen tracing keeps::

    handle = torch.ops.profiler._record_function_enter_new(name, args)
    ...
    torch.ops.profiler._record_function_exit._RecordFunction(handle)

``import_profiler_call`` turns each into its op of ``hopc.dialects.profiler``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.fx
from xdsl.ir import Operation, SSAValue

from hopc.dialects.profiler import RecordFunctionEnterOp, RecordFunctionExitOp

_profiler = torch.ops.profiler


def profiler_op(node: torch.fx.Node, value: Callable[[object], SSAValue]) -> Operation | None:
    """The op for a call of a ``profiler`` operator, or None for another call.

    ``value`` gives the SSA value of an FX argument (the range a call closes).
    """
    if node.target is _profiler._record_function_enter_new.default:
        args = node.args[1] if len(node.args) > 1 else node.kwargs.get("args")
        return RecordFunctionEnterOp(node.args[0], args)
    if node.target is _profiler._record_function_exit._RecordFunction:
        return RecordFunctionExitOp(value(node.args[0]))
    return None
