"""Reference-interpreter implementations of the ``profiler`` dialect: PyTorch's profiler operators.

A range is the handle ``torch.ops.profiler._record_function_enter_new``
returns; it opens a range in the active ``torch.profiler`` (none is recorded
without one), and ``_record_function_exit`` closes it.
"""

from __future__ import annotations

import torch

from hopc.backend.interpreter import Frame
from hopc.backend.interpreter_registry import impl, register_impls
from hopc.dialects.profiler import RecordFunctionEnterOp, RecordFunctionExitOp


@register_impls
class ProfilerImpls:
    @impl(RecordFunctionEnterOp)
    def run_enter(self, op: RecordFunctionEnterOp, frame: Frame) -> list[object]:
        args = op.args.data if op.args is not None else None
        return [torch.ops.profiler._record_function_enter_new(op.range_name.data, args)]

    @impl(RecordFunctionExitOp)
    def run_exit(self, op: RecordFunctionExitOp, frame: Frame) -> list[object]:
        torch.ops.profiler._record_function_exit._RecordFunction(frame.values[op.range])
        return []
