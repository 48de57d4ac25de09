"""A ``kernel.kernel`` as the Triton source of one ``@triton.jit`` function.

``emit_kernel(kernel, target, index_bits)`` gives an ``EmittedKernel``: the
source (imports, helpers, the function) for one target (Note [kernel
targets] in ``hopc.backend.triton.target``) and index width (Note [index
width]), its function name, and what its launcher passes (``LaunchLayout``).
Pointwise kernels are written here, reductions in
``hopc.backend.triton.reduction``; both build values with ``ValueWriter``.
No IR text reaches the source (Note [no IR text in generated source]).

Note [pointwise indexing]
~~~~~~~~~~~~~~~~~~~~~~~~~
A pointwise kernel runs over its iteration shape ``I`` (its results'
shape), rank ``R``, flattened row-major: program ``p`` takes the indices
``p * XBLOCK + arange(XBLOCK)`` below ``numel``, and decomposes each into
coordinates with the sizes ``size0 .. size{R-1}`` (runtime ints, so one
compiled kernel serves every size of a dynamic dimension). Input ``i`` is
read at ``sum(coord_d * stride{i}_{d})``, its strides those of the tensor
expanded to ``I`` (0 on a broadcast dimension), taken at launch from the
actual tensor, so non-contiguous and broadcast inputs need no copy. Outputs
are contiguous: result ``j`` is stored at ``out{j} + index``. A 0-d
iteration shape is run as ``[1]``.

Note [index width]
~~~~~~~~~~~~~~~~~~
A kernel's index arithmetic (program ids, coordinates, offsets) is written
in one of two widths: 64 bits, which addresses any tensor, or 32 bits, whose
division and remainder are several times cheaper on a GPU (64-bit ``div``/
``rem`` are long instruction sequences in PTX). The source differs only in
its program id (``tl.program_id(0)`` is int32; the 64-bit form converts it),
and Triton passes each int argument as i32 where it fits, so everything it
meets stays i32. The launcher picks the width per launch
(``index_bits``), as Inductor's ``can_use_32bit_indexing`` does: 32 bits
where the iteration's element count plus the largest block, and the storage
of every tensor (in elements) are below ``2**31``, so that every offset of
an element inside the iteration fits; 64 bits otherwise. Lanes masked off
at the end of the iteration may compute offsets that wrap; they are never
loaded or stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from xdsl.ir import Operation, SSAValue

from hopc.backend.triton import ops
from hopc.backend.triton.library import HEADERS, helper_source
from hopc.backend.triton.names import TRITON_DTYPES, comment_text, function_name, literal, value_name
from hopc.backend.triton.target import Target
from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import KernelOp
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim
from hopc.ir.types import TensorType

INDEX_WIDTHS = (32, 64)
"""The widths of a kernel's index arithmetic (Note [index width])."""


def program_index(index_bits: int) -> str:
    """The program id in the index width (Note [index width])."""
    return "tl.program_id(0)" if index_bits == 32 else "tl.program_id(0).to(tl.int64)"


@dataclass(frozen=True)
class LaunchLayout:
    """The runtime arguments after the input and output pointers, in order.

    ``shape``: the iteration shape (pointwise) or the reduced input's shape
    (reduction), as IR dims the launcher evaluates; the kernel takes
    ``numel`` (pointwise) or the row count (reduction), then one size per
    dimension of ``shape``. ``strides``: one group per (input index, shape):
    the strides of that input expanded to that shape, the first ``count`` of
    them. ``block``: the name of the block-size constexpr; ``row_block``: that of a
    reduction's rows per program (Note [reduction stages]).
    """

    shape: tuple[Dim, ...]
    strides: tuple[tuple[int, tuple[Dim, ...], int], ...]
    block: str
    row_block: str | None = None


@dataclass(frozen=True)
class EmittedKernel:
    """The source of a generated kernel and how to launch it."""

    symbol: str
    kind: str
    name: str
    """The jit function's name in ``source`` (``names.function_name``)."""
    source: str
    layout: LaunchLayout
    target: Target
    index_bits: int


def convert(expression: str, source: torch.dtype, target: torch.dtype) -> str:
    """``expression`` of dtype ``source`` as ``target`` (Note [triton dtypes])."""
    if source == target:
        return expression
    if target == torch.bool:
        return f"(({expression}) != 0)"
    return f"({expression}).to({TRITON_DTYPES[target]})"


def tensor_dtype(value: SSAValue) -> torch.dtype:
    dtype = ops.tensor_dtype(value.type)
    if dtype is None:
        raise op_error(value.owner if isinstance(value.owner, Operation) else None,
                       f"a generated kernel cannot hold a value of type {value.type}")
    return dtype


@dataclass
class ValueWriter:
    """Writes statements computing SSA values for ``target``; every name it prints is its own.

    ``lines`` is the statement list being written (a caller swaps it to write
    a loop body); ``helpers`` collects the ``library`` functions used.
    """

    target: Target
    index_bits: int
    lines: list[str] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)
    counter: int = 0

    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return value_name(prefix, self.counter)

    def assign(self, expression: str, prefix: str = "t", indent: str = "    ") -> str:
        name = self.fresh(prefix)
        self.lines.append(f"{indent}{name} = {expression}")
        return name

    def pointwise(self, op: Operation, operands: Sequence[str], shape: str, indent: str = "    ") -> str:
        """The name of ``op``'s result, computed from ``operands`` (expressions of its operands)."""
        if not isinstance(op, AtenOp) or op.name not in ops.POINTWISE or not ops.can_emit(op):
            raise op_error(op, "cannot be generated as Triton here (hopc.backend.triton.ops.can_emit)")
        rule = ops.POINTWISE[op.name]
        scalars = ops.scalar_arguments(op) or {}
        compute = ops.compute_dtype(op, rule, scalars)
        expressions = dict(zip(op.operands, operands))
        args: dict[str, str] = {}
        for argument, values in op.operand_groups():
            if values:
                value = values[0]
                dtype = tensor_dtype(value)
                promoted = argument.name in rule.promoted or rule.kind is None
                args[argument.name] = convert(expressions[value], dtype, compute) if promoted \
                    else expressions[value]
        for name, value in scalars.items():
            if isinstance(value, bool | int | float):
                args[name] = literal(value, compute)
        context = ops.RuleContext(args, scalars, compute, shape, self.target)
        body = rule.body(context)
        self.helpers.update(context.helpers)
        produced = torch.bool if rule.kind == ops.Kind.ALWAYS_BOOL else compute
        return self.assign(convert(body, produced, tensor_dtype(op.results[0])), indent=indent)

    def source(self, symbol: str, kind: str, name: str, parameters: Sequence[str], layout: LaunchLayout,
               body: Sequence[str]) -> EmittedKernel:
        blocks = [layout.block] if layout.row_block is None else [layout.block, layout.row_block]
        signature = ", ".join([*parameters, *(f"{block}: tl.constexpr" for block in blocks)])
        text = "".join([HEADERS[self.target], helper_source(self.helpers, self.target), "\n",
                        f"# kernel.kernel {comment_text(symbol)} ({kind})\n",
                        "@triton.jit\n", f"def {name}({signature}):\n", "\n".join(body), "\n"])
        return EmittedKernel(symbol, kind, name, text, layout, self.target, self.index_bits)


def tensor_arguments(kernel: KernelOp) -> list[SSAValue]:
    return [a for a in kernel.body.block.args if isinstance(a.type, TensorType)]


def emit_kernel(kernel: KernelOp, target: Target = Target.CUDA, index_bits: int = 64) -> EmittedKernel:
    """The Triton source of a pointwise or reduction kernel for ``target``, its index arithmetic
    ``index_bits`` wide (Note [index width]); a located error for what it cannot hold."""
    if index_bits not in INDEX_WIDTHS:
        raise ValueError(f"index arithmetic is {' or '.join(map(str, INDEX_WIDTHS))} bits wide, not {index_bits}")
    kind = kernel.kind.data
    writer = ValueWriter(target, index_bits)
    if kind == "pointwise":
        return emit_pointwise(kernel, writer)
    if kind == "reduction":
        from hopc.backend.triton.reduction import emit_reduction

        return emit_reduction(kernel, writer)
    raise op_error(kernel, f"kernel.kernel {comment_text(kernel.sym_name.data)} of kind '{kind}' "
                           "is run by its library, not generated")


def emit_pointwise(kernel: KernelOp, writer: ValueWriter) -> EmittedKernel:
    """A pointwise kernel (Note [pointwise indexing]), written by ``writer``."""
    outputs = list(kernel.yield_op.values)
    if not outputs:
        raise op_error(kernel, "a pointwise kernel yields no value")
    shape = outputs[0].type.shape
    for value in outputs:
        if value.type.shape != shape:
            raise op_error(kernel, f"pointwise kernel yields values of shapes {outputs[0].type} and "
                                   f"{value.type}; all must have the iteration shape")
    rank = max(len(shape), 1)
    inputs = tensor_arguments(kernel)
    lines = [f"    offset = {program_index(writer.index_bits)} * XBLOCK + tl.arange(0, XBLOCK)",
             "    mask = offset < numel"]
    rest = "offset"
    for dim in reversed(range(rank)):
        if dim:
            lines.append(f"    index{dim} = {rest} % size{dim}")
            lines.append(f"    rest{dim} = {rest} // size{dim}")
            rest = f"rest{dim}"
        else:
            lines.append(f"    index0 = {rest}")
    names: dict[SSAValue, str] = {}
    for position, argument in enumerate(inputs):
        address = " + ".join(f"index{d} * stride{position}_{d}" for d in range(rank))
        names[argument] = writer.assign(f"tl.load(in{position} + {address}, mask=mask)", "a")
    writer.lines = lines + writer.lines
    for op in kernel.computation:
        names[op.results[0]] = writer.pointwise(op, [names[v] for v in op.operands], "[XBLOCK]")
        for extra in op.results[1:]:
            raise op_error(op, f"a generated kernel takes ops of one result; {extra} is a second")
    for position, value in enumerate(outputs):
        writer.lines.append(f"    tl.store(out{position} + offset, {names[value]}, mask=mask)")
    dims = tuple(shape) or (1,)
    layout = LaunchLayout(dims, tuple((position, dims, rank) for position in range(len(inputs))), "XBLOCK")
    parameters = [*(f"in{p}" for p in range(len(inputs))), *(f"out{p}" for p in range(len(outputs))),
                  "numel", *(f"size{d}" for d in range(rank)),
                  *(f"stride{p}_{d}" for p in range(len(inputs)) for d in range(rank))]
    return writer.source(kernel.sym_name.data, "pointwise", function_name(kernel.sym_name.data),
                         parameters, layout, writer.lines)
