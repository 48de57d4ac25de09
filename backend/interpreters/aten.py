"""The reference interpreter's ``aten`` dialect: every op runs PyTorch's own kernel.

In-place ops and views act on the very tensors they are given, as in eager
mode (``hopc.torch_bridge.aten_call.call_aten``). ``aten.detach_copy`` (what
functionalize makes of ``detach``) also detaches from autograd, as ``detach``
does: PyTorch's own kernel would carry the input's history (and has no
derivative), which matters where the interpreter runs under autograd (the
gradient oracle).
"""

from __future__ import annotations

from hopc.backend.interpreter import INTERPRETER_RULES, Frame
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.torch_bridge.aten_call import call_aten


@INTERPRETER_RULES.register(AtenOp)
def run_aten(op: AtenOp, frame: Frame) -> list[object]:
    return call_aten(op, frame.values.__getitem__, frame.symbols)


@INTERPRETER_RULES.register(op_class("aten.detach_copy"))
def run_detach_copy(op: AtenOp, frame: Frame) -> list[object]:
    return [frame.values[op.operands[0]].detach().clone()]
