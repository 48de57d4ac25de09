"""``hop.invoke_subgraph`` and ``hop.autograd_function`` in the backend: a call of a ``hop.subgraph``
(an autograd function calls its forward).

A subgraph binds its own symbols from its parameters (Note [subgraph symbols]
in ``hopc.dialects.hops.subgraph``): the interpreter runs its body in a scope
of its own (``run_callee``), no caller values; host code generates its
function once, isolated, and every call calls it. The planned executor runs
the reference implementation.
"""

from __future__ import annotations

from hopc.backend.hops.bodies import emit_call
from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.names import VALUE
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error, run_callee
from hopc.dialects import hop


@INTERPRETER_RULES.register(hop.InvokeSubgraphOp, hop.AutogradFunctionOp)
def run_invoke_subgraph(op: hop.InvokeSubgraphOp | hop.AutogradFunctionOp, frame: Frame) -> list[object]:
    """Runs the subgraph in a scope of its own: its parameters bound afresh, no caller values."""
    subgraph = op.subgraph()
    if subgraph is None:
        raise interpreter_error(op, f"calls unknown subgraph {op.callee}")
    return run_callee(subgraph.body, subgraph.input_types, frame.get(op.inputs), frame, op)


@HOST_LOWERINGS.register(hop.InvokeSubgraphOp, hop.AutogradFunctionOp)
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
    emit_call(builder, op, f"{name}({', '.join(builder.locals(op.inputs))})")
