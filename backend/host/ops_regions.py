"""The HOPs whose bodies run as functions: ``hop.scan``/``hop.map`` bodies as nested ``def``s,
each ``hop.subgraph`` as one function of the source that every ``hop.invoke_subgraph`` calls.

A scan or map body is a closure over the enclosing function's locals, run
once per slice by ``_scan``/``_map``, which stack each output over the
slices as the reference implementations do (``hopc.backend.interpreter_hop``):
with no slices, an output is an empty tensor of its type's shape, evaluated
where the op runs (the thunk the code passes). A subgraph binds its own
symbols from its parameters (Note [subgraph symbols] in ``hopc.dialects.hop``),
so its function is generated once, isolated, and called by every invoke.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import torch
from xdsl.ir import Block, Operation, SSAValue

from hopc.backend.host.codegen import LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION, VALUE
from hopc.backend.interpreter import interpreter_error
from hopc.dialects import hop
from hopc.ir.diagnostics import HopcError
from hopc.ir.torch_values import dtype_of
from hopc.ir.types import TensorType

Shapes = Callable[[], list[tuple[int, ...]]] | None
"""The shapes of the stacked outputs where there are no slices; None where they cannot be
evaluated where the op runs (then no slices is an error)."""


def lower_scan(builder: HostBuilder, op: hop.ScanOp) -> None:
    body = _body_function(builder, op.body.block)
    stacked = op.outputs[len(op.init):]
    run = builder.bind(functools.partial(_scan, op, op.is_reverse, _dtypes(stacked), builder.device), FUNCTION)
    arguments = [f"[{', '.join(builder.locals(values))}]" for values in (op.init, op.xs, op.additional)]
    _emit_call(builder, op, f"{run}({body}, {', '.join(arguments)}, {_empty_shapes(builder, stacked)})")


def lower_map(builder: HostBuilder, op: hop.MapOp) -> None:
    body = _body_function(builder, op.body.block)
    run = builder.bind(functools.partial(_map, op, _dtypes(op.outputs), builder.device), FUNCTION)
    arguments = [f"[{', '.join(builder.locals(values))}]" for values in (op.xs, op.additional)]
    _emit_call(builder, op, f"{run}({body}, {', '.join(arguments)}, {_empty_shapes(builder, op.outputs)})")


def lower_invoke_subgraph(builder: HostBuilder, op: hop.InvokeSubgraphOp | hop.AutogradFunctionOp) -> None:
    """A call of the subgraph's function (made once); an autograd function calls its forward."""
    subgraph = op.subgraph()
    if subgraph is None:
        raise builder.error(f"calls unknown subgraph {op.callee}")
    name = builder.subgraph_functions.get(subgraph)
    if name is None:
        parameters = [builder.names.fresh(VALUE) for _ in subgraph.body.block.args]
        with builder.function(parameters) as name:
            builder.subgraph_functions[subgraph] = name
            yielded = builder.lower_block(subgraph.body.block, parameters, isolated=True)
            builder.emit(f"return [{', '.join(yielded)}]")
    _emit_call(builder, op, f"{name}({', '.join(builder.locals(op.inputs))})")


def _body_function(builder: HostBuilder, block: Block) -> str:
    """A nested ``def`` of ``block`` returning the list of its yields; its name."""
    parameters = [builder.names.fresh(VALUE) for _ in block.args]
    with builder.function(parameters, nested=True) as name:
        yielded = builder.lower_block(block, parameters)
        builder.emit(f"return [{', '.join(yielded)}]")
    return name


def _emit_call(builder: HostBuilder, op: Operation, call: str) -> None:
    """``results = call`` where ``call`` returns a list of one value per result."""
    builder.unpack([builder.define(r) for r in op.results], call)


def _dtypes(values: Sequence[SSAValue]) -> list[torch.dtype]:
    return [dtype_of(v.type.element_type) for v in values]


def _empty_shapes(builder: HostBuilder, values: Sequence[SSAValue]) -> str:
    """A thunk (source) of the shapes of ``values``' types, or ``None`` where a symbol is unbound."""
    try:
        shapes = [builder.dims(v.type.shape) for v in values if isinstance(v.type, TensorType)]
    except HopcError:
        return "None"
    return f"lambda: [{', '.join(shapes)}]"


def _slices(op: Operation, xs: list[torch.Tensor]) -> int:
    lengths = {x.size(0) for x in xs}
    if len(lengths) != 1:
        raise interpreter_error(op, f"scanned operands differ in dim 0: {sorted(lengths)}")
    return lengths.pop()


def _stacked(op: Operation, stepped: list[list[object]], dtypes: list[torch.dtype], device: str,
             shapes: Shapes) -> list[object]:
    if stepped:
        return [torch.stack(column) for column in zip(*stepped, strict=True)]
    if shapes is None:
        raise interpreter_error(op, "ran no slices, and the sizes of its empty results are unknown here")
    return [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in zip(shapes(), dtypes, strict=True)]


def _scan(op: hop.ScanOp, reverse: bool, dtypes: list[torch.dtype], device: str, body: Callable,
          carry: list[object], xs: list[torch.Tensor], additional: list[object], shapes: Shapes) -> list[object]:
    length = _slices(op, xs)
    stepped: list[list[object]] = [[] for _ in range(length)]  # outputs by index, not step
    for index in reversed(range(length)) if reverse else range(length):
        outputs = body(*carry, *[x[index] for x in xs], *additional)
        carry, stepped[index] = outputs[:len(carry)], outputs[len(carry):]
    return carry + _stacked(op, stepped, dtypes, device, shapes)


def _map(op: hop.MapOp, dtypes: list[torch.dtype], device: str, body: Callable, xs: list[torch.Tensor],
         additional: list[object], shapes: Shapes) -> list[object]:
    stepped = [body(*[x[index] for x in xs], *additional) for index in range(_slices(op, xs))]
    return _stacked(op, stepped, dtypes, device, shapes)


LOWERINGS.update({
    hop.ScanOp: lower_scan,
    hop.MapOp: lower_map,
    hop.InvokeSubgraphOp: lower_invoke_subgraph,
    hop.AutogradFunctionOp: lower_invoke_subgraph,
})
