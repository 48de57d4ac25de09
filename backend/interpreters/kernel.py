"""Reference-interpreter implementations of the ``kernel`` dialect.

A launch runs its kernel's body op by op, as a call of a ``hop.subgraph``
(its parameters bound afresh from the operands); with ``into`` buffers, each
result is copied into its buffer and the buffer is the result, so a later
launch into the same buffer overwrites it, as the compiled executors do. An
allocation evaluates its shape and strides under the symbols bound then. A
``kernel.graph`` runs its body as a callee (a graph binds its own symbols);
its conds and whiles run as they would outside it.
"""

from __future__ import annotations

import torch

from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error, run_callee
from hopc.dialects.kernel import AllocOp, GraphOp, LaunchOp
from hopc.torch_bridge.torch_values import dtype_of, evaluate_dim


@INTERPRETER_RULES.register(LaunchOp)
def run_launch(op: LaunchOp, frame: Frame) -> list[object]:
    kernel = op.kernel()
    if kernel is None:
        raise interpreter_error(op, f"launches unknown kernel {op.callee}")
    results = run_callee(kernel.body, kernel.input_types, frame.get(op.arguments), frame, op)
    if not op.into:
        return results
    buffers = frame.get(op.into)
    for buffer, result in zip(buffers, results, strict=True):
        buffer.copy_(result)
    return list(buffers)


@INTERPRETER_RULES.register(GraphOp)
def run_graph(op: GraphOp, frame: Frame) -> list[object]:
    block = op.body.block
    return run_callee(op.body, [a.type for a in block.args], frame.get(op.inputs), frame, op)


@INTERPRETER_RULES.register(AllocOp)
def run_alloc(op: AllocOp, frame: Frame) -> list[object]:
    buffer_type = op.buffer.type
    shape = [evaluate_dim(d, frame.symbols) for d in buffer_type.shape]
    strides = [evaluate_dim(s, frame.symbols) for s in buffer_type.strides]
    return [torch.empty_strided(shape, strides, dtype=dtype_of(buffer_type.element_type),
                                device=buffer_type.device)]
