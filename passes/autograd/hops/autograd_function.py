"""The backward of ``hop.autograd_function``: the user's backward, called on the saved values.

    %y, %s = hop.autograd_function @f(%x, %w) backward @b {gradients = array<i64: 0>, output_count = 1}
                                                   // %y has a cotangent %t, or none
  ->
    %y, %s = hop.invoke_subgraph @f(%x, %w)        // forward: the same call
    ...
    %t0 = aten.zeros_like(%y)                      // backward: only where %y has no cotangent
    %dx = hop.invoke_subgraph @b(%t, %s)           // one gradient per position in gradients

The forward's ops are never differentiated: the gradients are what the
user's backward returns (Note [custom autograd functions] in
``hopc.dialects.hops.autograd_function``), each operand not listed in
``gradients`` (a ``None`` of the backward) takes none, and an output without
a cotangent gets zeros, as eager materializes it (``ctx.set_materialize_grads``
is on by default), also one marked non-differentiable, which the frontend
reads only through ``aten.detach``. The saved values are forward values like
any other, which the min-cut partitioner saves.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import SSAValue
from xdsl.traits import SymbolTable

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.passes.autograd.hops.outlining import call, module_of
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.torch_bridge.aten_builders import build_aten


@BACKWARD_RULES.register(hop.AutogradFunctionOp)
def autograd_function_backward(builder: JointBuilder, op: hop.AutogradFunctionOp,
                               cotangents: list[SSAValue | None]) -> list[SSAValue | None]:
    """``autograd_function @f(x) backward @b`` -> ``invoke @f(x)`` and ``invoke @b(t, saved)``."""
    module = module_of(builder, op)
    forward_body = _subgraph(module, op, op.callee)
    backward_body = _subgraph(module, op, op.backward)
    count, positions, inputs = op.output_count.value.data, op.gradient_positions, list(op.inputs)
    if any(c is not None for c in cotangents[count:]):
        raise op_error(op, "autograd: a value saved for the backward of a custom autograd.Function "
                           "is used as an output")
    if len(backward_body.input_types) != len(op.outputs):
        raise op_error(op, f"autograd: the backward {op.backward} takes {len(backward_body.input_types)} "
                           f"values, not the {len(op.outputs)} cotangents and saved values")
    forward = builder.insert_forward(call(forward_body, inputs, [r.type for r in op.outputs]), before=op)
    builder.replace_forward(op, forward.results)
    outputs = forward.results[:count]
    tangents = [c if c is not None else builder.emit(build_aten("aten.zeros_like", [o])).results[0]
                for c, o in zip(cotangents[:count], outputs, strict=True)]
    backward = builder.emit(call(backward_body, [*tangents, *forward.results[count:]]))
    gradients: list[SSAValue | None] = [None] * len(inputs)
    for position, gradient in zip(positions, backward.results, strict=True):
        gradients[position] = gradient
    return gradients


def _subgraph(module: ModuleOp, op: hop.AutogradFunctionOp, symbol: SymbolRefAttr) -> hop.SubgraphOp:
    """The subgraph ``symbol`` names, looked up in ``module`` (``op`` may be in a detached joint)."""
    found = SymbolTable.lookup_symbol(module, symbol)
    if not isinstance(found, hop.SubgraphOp):
        raise op_error(op, f"autograd: '{op.name}' names unknown subgraph {symbol}")
    return found
