"""The reference interpreter's ``aten`` dialect: every op runs PyTorch's own kernel.

In-place ops and views act on the very tensors they are given, as in eager
mode (``hopc.backend.interpreter_ops.call_aten``).
"""

from __future__ import annotations

from hopc.backend.interpreter import Frame
from hopc.backend.interpreter_ops import call_aten
from hopc.backend.interpreter_registry import impl, register_impls
from hopc.dialects.aten import AtenOp


@register_impls
class AtenImpls:
    @impl(AtenOp)
    def run_aten(self, op: AtenOp, frame: Frame) -> list[object]:
        return call_aten(op, frame.values.__getitem__, frame.symbols)
