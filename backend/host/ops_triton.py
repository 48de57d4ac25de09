"""Launches in host code for the ``triton`` executor: generated kernels run by their launcher.

A ``pointwise`` or ``reduction`` launch calls the launcher
``hopc.backend.triton.launcher.compile_kernel`` made of its kernel when the
function was generated: ``launcher([args], [outs])``, writing into the
launch's ``into`` buffers, or into contiguous tensors allocated here (of the
results' shapes, on the module's device) where it has none; the results are
those tensors. An ``extern`` launch is the ``aten`` executor's code
(``lower_launch_inline``). On the CPU, Triton runs its interpreter, which
``TRITON_INTERPRET=1`` selects before Triton is first imported
(``use_interpreter``); kernels are generated for the process's target, the
interpreter or CUDA (Note [kernel targets] in ``hopc.backend.triton.target``).
"""

from __future__ import annotations

import os

import torch

from hopc.backend.host.codegen import HostBuilder
from hopc.backend.host.lowerings.kernel import launched_kernel, lower_launch_inline
from hopc.backend.host.names import FUNCTION
from hopc.dialects.kernel import LaunchOp
from hopc.torch_bridge.torch_values import dtype_of

INTERPRET = "TRITON_INTERPRET"


def use_interpreter(device: str) -> None:
    """Selects Triton's interpreter for a CPU module (unless the environment chose already)."""
    if device == "cpu":
        os.environ.setdefault(INTERPRET, "1")


def lower_launch_triton(builder: HostBuilder, op: LaunchOp) -> None:
    kernel = launched_kernel(builder, op)
    if kernel.kind.data == "extern":
        lower_launch_inline(builder, op)
        return
    use_interpreter(builder.device)
    from hopc.backend.triton.launcher import compile_kernel
    from hopc.backend.triton.target import process_target

    launcher = builder.bind(compile_kernel(kernel, process_target()), FUNCTION)
    outs = builder.locals(op.into)
    if not outs:
        empty, device = builder.bind(torch.empty, FUNCTION), builder.bind(torch.device(builder.device))
        for result in op.outputs:
            out = builder.define(result)
            dtype = builder.bind(dtype_of(result.type.element_type))
            builder.emit(f"{out} = {empty}({builder.dims(result.type.shape)}, dtype={dtype}, device={device})")
            outs.append(out)
    builder.emit(f"{launcher}([{', '.join(builder.locals(op.arguments))}], [{', '.join(outs)}])")
    for result, out in zip(op.outputs, outs, strict=True):
        builder.alias(result, out)
