"""The HOPs whose bodies run as functions: ``hop.scan``/``hop.map``/``hop.associative_scan``
bodies as nested ``def``s, each ``hop.subgraph`` as one function of the source that every
``hop.invoke_subgraph`` calls.

A scan or map body is a closure over the enclosing function's locals, run
once per slice by ``run_sliced``, the helper that the reference
implementations run too (``hopc.backend.interpreter_hop``): with no slices,
an output is an empty tensor of its type's shape, evaluated where the op runs
(the thunk the code passes). An associative scan's combine body runs the same
way, by ``run_associative_scan``. A subgraph binds its own symbols from its
parameters (Note [subgraph symbols] in ``hopc.dialects.hops.subgraph``), so its
function is generated once, isolated, and called by every invoke.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import torch
from xdsl.ir import Block, Operation, SSAValue

from hopc.backend.host.codegen import LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION, VALUE
from hopc.backend.interpreter import interpreter_error
from hopc.backend.interpreter_hop import run_associative_scan, run_sliced
from hopc.dialects import hop
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import TensorType
from hopc.torch_bridge.torch_values import dtype_of

Shapes = Callable[[], list[tuple[int, ...]]] | None
"""The shapes of the stacked outputs where there are no slices; None where they cannot be
evaluated where the op runs (then no slices is an error)."""


def lower_scan(builder: HostBuilder, op: hop.ScanOp) -> None:
    _lower_sliced(builder, op, [op.init, op.xs, op.additional], op.outputs[len(op.init):], op.is_reverse)


def lower_map(builder: HostBuilder, op: hop.MapOp) -> None:
    _lower_sliced(builder, op, [[], op.xs, op.additional], op.outputs, False)


def _lower_sliced(builder: HostBuilder, op: hop.ScanOp | hop.MapOp, groups: list[Sequence[SSAValue]],
                  stacked: Sequence[SSAValue], reverse: bool) -> None:
    """``results = run(body, [carry], [xs], [additional], shapes)``: ``run_sliced`` on the body's
    function, with the op's stacked results' empty tensors where there are no slices."""
    body = _body_function(builder, op.body.block)
    run = builder.bind(functools.partial(_run_sliced, op, reverse, _dtypes(stacked), builder.device), FUNCTION)
    arguments = [f"[{', '.join(builder.locals(values))}]" for values in groups]
    _emit_call(builder, op, f"{run}({body}, {', '.join(arguments)}, {_empty_shapes(builder, stacked)})")


def lower_associative_scan(builder: HostBuilder, op: hop.AssociativeScanOp) -> None:
    """``results = run(body, [xs], [additional])``: ``run_associative_scan`` on the body's function."""
    body = _body_function(builder, op.body.block)
    run = builder.bind(functools.partial(run_associative_scan, op), FUNCTION)
    arguments = [f"[{', '.join(builder.locals(values))}]" for values in (op.xs, op.additional)]
    _emit_call(builder, op, f"{run}({body}, {', '.join(arguments)})")


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


def _run_sliced(op: hop.ScanOp | hop.MapOp, reverse: bool, dtypes: list[torch.dtype], device: str,
                body: Callable, carry: list[object], xs: list[torch.Tensor], additional: list[object],
                shapes: Shapes) -> list[object]:
    return run_sliced(op, body, carry, xs, additional, reverse,
                      functools.partial(_empty_results, op, dtypes, device, shapes))


def _empty_results(op: Operation, dtypes: list[torch.dtype], device: str, shapes: Shapes) -> list[object]:
    if shapes is None:
        raise interpreter_error(op, "ran no slices, and the sizes of its empty results are unknown here")
    return [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in zip(shapes(), dtypes, strict=True)]


LOWERINGS.update({
    hop.ScanOp: lower_scan,
    hop.MapOp: lower_map,
    hop.AssociativeScanOp: lower_associative_scan,
    hop.InvokeSubgraphOp: lower_invoke_subgraph,
    hop.AutogradFunctionOp: lower_invoke_subgraph,
})
