"""The ``kernel`` ops in host code: buffers, launches, and CUDA graph segments.

- ``kernel.alloc``: ``torch.empty_strided(shape, strides, dtype=..., device=...)``,
  the shape and strides Python expressions over the symbols' locals;
- ``kernel.launch``: one whose results host code keeps as Python scalars is
  Python expressions (``hopc.backend.host.ops_scalars``), any other what the
  executor's launch lowering emits (``HostBuilder.lower_launch``); the ``aten``
  executor's is ``lower_launch_inline``: the kernel's body inlined,
  its block arguments the operands' locals and its symbols bound afresh
  from them (a kernel is isolated, as a ``hop.subgraph``); each ATen op is a
  direct call (``lowerings.aten``). With ``into`` buffers, the body's last op
  writes its result into its buffer with its ``out=`` overload where it has
  one, and every other result is copied in after it
  (``buffer.copy_(result)``); the launch's results are the buffers, as in
  the reference interpreter. An ``extern`` kernel (one op) is the same code:
  one call, into its buffer;
- ``kernel.graph``: a segment of the ``cuda`` executor (``hopc.backend.cuda.lowering``).

Only the last op writes a buffer, and the copies follow it: a pointwise
launch may write in place, into the buffer of an operand it reads (Note
[memory plan] in ``hopc.passes.plan_memory``), which a generated kernel reads
element by element before it writes; op by op, every read of that operand
must come first.

Note [first write allocates]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On the CPU an ATen call that allocates its result costs the same as one
that writes ``out=`` a tensor allocated by a call of its own before it
(``torch.empty_strided``, about a microsecond). So for the ``aten``
executor a ``kernel.alloc`` emits no code, and the buffer's first writer,
which ``plan-memory`` places right after it in the same block, allocates
it: its last op is called without ``out=`` and its result is the buffer
(a yield that may share a kernel argument's storage, the argument itself
or a view of it, is cloned, never shared: Note [result storage] in
``hopc.dialects.aten_storage``). Later writers
of the buffer (reuse, in place) write ``out=`` it as before, but one whose
op has no ``out=`` overload (``threshold_backward``) does not copy its
result in: the result becomes the buffer from there on, as if allocated
anew (the value the buffer held is dead, Note [memory plan]), which costs
an allocation instead of a copy. The buffer then
has the strides its first op gives it, which ``out=`` calls respect; the
``triton`` executor, whose kernels store contiguously, allocates as planned.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.lowerings.aten import call_source, out_variant
from hopc.backend.host.names import FUNCTION
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_storage import shared_arguments
from hopc.dialects.kernel import AllocOp, GraphOp, KernelOp, LaunchOp
from hopc.torch_bridge.torch_values import dtype_of


@HOST_LOWERINGS.register(LaunchOp)
def lower_launch(builder: HostBuilder, op: LaunchOp) -> None:
    """A launch of host scalars as Python expressions (Note [host scalars]), any other as the
    executor lowers launches."""
    if op in builder.host_scalars.python_launches:
        from hopc.backend.host.ops_scalars import lower_scalar_launch  # which imports this module

        lower_scalar_launch(builder, op)
    else:
        builder.lower_launch(builder, op)


@HOST_LOWERINGS.register(GraphOp)
def lower_graph(builder: HostBuilder, op: GraphOp) -> None:
    """A CUDA graph segment; its lowering, and the CUDA graph machinery it uses, are imported
    where the first is lowered (only the ``cuda`` executor forms them)."""
    from hopc.backend.cuda import lowering

    lowering.lower_graph(builder, op)


@HOST_LOWERINGS.register(AllocOp)
def lower_alloc(builder: HostBuilder, op: AllocOp) -> None:
    if builder.first_write_allocates:
        builder.unallocated.add(builder.define(op.buffer))
        return
    buffer = op.buffer.type
    empty = builder.bind(torch.empty_strided, FUNCTION)
    dtype, device = builder.bind(dtype_of(buffer.element_type)), builder.bind(torch.device(buffer.device))
    shape, strides = builder.dims(buffer.shape), builder.dims(buffer.strides)
    builder.emit(f"{builder.define(op.buffer)} = {empty}({shape}, {strides}, dtype={dtype}, device={device})")


def launched_kernel(builder: HostBuilder, op: LaunchOp) -> KernelOp:
    kernel = op.kernel()
    if kernel is None:
        raise builder.error(f"launches unknown kernel {op.callee}")
    return kernel


@contextlib.contextmanager
def kernel_scope(builder: HostBuilder, kernel: KernelOp, op: LaunchOp) -> Iterator[None]:
    """The scope of ``kernel``'s body run by the launch ``op``: isolated (a kernel binds its own
    symbols, as a ``hop.subgraph``), its block arguments the operands' locals, its symbols
    bound afresh from them."""
    block = kernel.body.block
    with builder.scope(isolated=True):
        for argument, local in zip(block.args, builder.locals(op.arguments), strict=True):
            builder.alias(argument, local)
        builder.bind_sources(block.args)
        yield


def lower_launch_inline(builder: HostBuilder, op: LaunchOp) -> None:
    """The kernel's body inlined at the launch (see the module docstring)."""
    kernel = launched_kernel(builder, op)
    buffers = builder.locals(op.into)
    fresh = {buffer for buffer in buffers if buffer in builder.unallocated}
    builder.unallocated -= fresh
    writer = _out_writer(kernel, [None if b in fresh else b for b in buffers])
    with kernel_scope(builder, kernel, op):
        for body_op in kernel.computation:
            if writer is None or body_op is not writer[0]:
                builder.lower_op(body_op)
                continue
            written, buffer, overload = writer
            with builder.at(written):
                builder.emit(call_source(builder, written, overload, out=buffer))
            builder.alias(written.results[0], buffer)
        yielded = builder.locals(kernel.yield_op.values)
    if not buffers:
        for result, local in zip(op.outputs, yielded, strict=True):
            builder.alias(result, local)
        return
    block = kernel.body.block
    for result, value, local, buffer, buffer_value in zip(op.outputs, kernel.yield_op.values, yielded, buffers,
                                                          op.into, strict=True):
        owns_storage = not shared_arguments(block, [value])  # Note [result storage]
        if buffer in fresh and owns_storage:
            builder.alias(buffer_value, local)  # the first write's result is the buffer
            buffer = local
        elif buffer in fresh:
            builder.emit(f"{buffer} = {local}.clone()")
        elif local != buffer and builder.first_write_allocates and owns_storage:
            builder.alias(buffer_value, local)  # no out= overload: the result becomes the buffer
            buffer = local
        elif local != buffer:
            builder.emit(f"{buffer}.copy_({local})")
        builder.alias(result, buffer)


def _out_writer(kernel: KernelOp, buffers: list[str | None]) -> tuple[AtenOp, str, torch._ops.OpOverload] | None:
    """(op, buffer, its ``out=`` overload) where the body's last op can write its result into
    the buffer of a yield (None: a buffer its first write allocates): the last, so that a
    buffer written in place (Note [memory plan]) is written after every read of the operand
    it holds; copies into the others follow it."""
    computation = kernel.computation
    if not any(buffers) or not computation:
        return None
    last = computation[-1]
    if not isinstance(last, AtenOp) or last.SCHEMA.is_custom or len(last.results) != 1:
        return None
    for value, buffer in zip(kernel.yield_op.values, buffers, strict=True):
        if value is last.results[0] and buffer is not None:
            overload = out_variant(last.SCHEMA.base_name, last.SCHEMA.overload)
            return None if overload is None else (last, buffer, overload)
    return None
