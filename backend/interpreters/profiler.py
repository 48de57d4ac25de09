"""Reference-interpreter implementations of the ``profiler`` dialect: PyTorch's profiler operators.

A range is the handle ``torch.ops.profiler._record_function_enter_new``
returns; it opens a range in the active ``torch.profiler`` (none is recorded
without one), and ``_record_function_exit`` closes it.
"""

from __future__ import annotations

import torch

from hopc.backend.interpreter import INTERPRETER_RULES, Frame
from hopc.dialects.profiler import RecordFunctionEnterOp, RecordFunctionExitOp


@INTERPRETER_RULES.register(RecordFunctionEnterOp)
def run_enter(op: RecordFunctionEnterOp, frame: Frame) -> list[object]:
    args = op.args.data if op.args is not None else None
    return [torch.ops.profiler._record_function_enter_new(op.range_name.data, args)]


@INTERPRETER_RULES.register(RecordFunctionExitOp)
def run_exit(op: RecordFunctionExitOp, frame: Frame) -> list[object]:
    torch.ops.profiler._record_function_exit._RecordFunction(frame.values[op.range])
    return []
