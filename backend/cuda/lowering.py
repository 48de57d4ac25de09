"""``kernel.graph`` in host code: its body a function of the source, run by a ``GraphSegment``.

For ``%r = kernel.graph(%x, %n) {...}`` the code is

    def f_3(v4, v5):            # the body, isolated: it binds its own symbols
        ...                     # its ops, as host code lowers them elsewhere
        return [v9]

    v10, = c_2(f_3, [v1, v6])   # c_2: the segment (hopc.backend.cuda.graphs)

and a ``hop.cond`` marked ``kernel.conditional_node = "if"`` in the body is

    def f_11(v12): ...          # then, a nested def returning its yields
    def f_13(v14): ...          # else
    v16 = [c_15((4, 8), dtype=c_7, device=c_8)]   # its results' buffers
    v17, = c_2.run_if(0, v9, f_11, f_13, [v4], v16)

a ``hop.while`` marked ``"while"`` is ``c_2.run_while(index, cond, body,
[carried], [additional])`` with nested defs of its two regions. The segment
runs them on the host outside a capture and as conditional nodes inside
one (Note [graph recordings] in ``hopc.backend.cuda.graphs``). Host code's
rule for ``kernel.graph`` (``hopc.backend.host.lowerings.kernel``) calls ``lower_graph``.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation

from hopc.backend.cuda import graphs
from hopc.backend.host.codegen import HostBuilder
from hopc.backend.host.names import FUNCTION, VALUE
from hopc.backend.runtime.plan import symbol_binders
from hopc.dialects.hops.control_flow import CondOp, WhileOp
from hopc.dialects.kernel import CONDITIONAL_NODE, GraphOp
from hopc.torch_bridge.torch_values import dtype_of


class _GraphLowering:
    """The lowering of one ``kernel.graph``: its segment's name, and its conditional bodies
    numbered in the order the code is generated."""

    def __init__(self, builder: HostBuilder, segment: str):
        self.builder = builder
        self.segment = segment
        self.bodies = 0

    def block(self, block: Block, arguments: list[str], isolated: bool = False) -> list[str]:
        """``HostBuilder.lower_block`` with conditional nodes lowered here; the yielded locals."""
        return self.builder.lower_block(block, arguments, isolated, lower_op=self._lower_op)

    def _lower_op(self, op: Operation) -> None:
        builder = self.builder
        kind = op.attributes.get(CONDITIONAL_NODE)
        if not isinstance(kind, StringAttr):
            builder.lower_op(op)
            return
        with builder.at(op):
            if kind.data == "if":
                self._if_node(op)
            else:
                self._while_node(op)
        builder.bind_sources(op.results)

    def _nested(self, block: Block) -> str:
        """A nested ``def`` of ``block`` returning its yields; its name."""
        builder = self.builder
        parameters = [builder.names.fresh(VALUE) for _ in block.args]
        with builder.function(parameters, nested=True) as name:
            yielded = self.block(block, parameters)
            builder.emit(f"return [{', '.join(yielded)}]")
        return name

    def _if_node(self, op: CondOp) -> None:
        builder = self.builder
        index, self.bodies = self.bodies, self.bodies + 2
        then_body, else_body = self._nested(op.then_region.block), self._nested(op.else_region.block)
        empty, device = builder.bind(torch.empty, FUNCTION), builder.bind(torch.device(builder.device))
        buffers = [f"{empty}({builder.dims(r.type.shape)}, dtype={builder.bind(dtype_of(r.type.element_type))}, "
                   f"device={device})" for r in op.outputs]
        outputs = builder.names.fresh(VALUE)
        builder.emit(f"{outputs} = [{', '.join(buffers)}]")
        call = (f"{self.segment}.run_if({index}, {builder.local(op.predicate)}, {then_body}, {else_body}, "
                f"[{', '.join(builder.locals(op.inputs))}], {outputs})")
        builder.unpack([builder.define(r) for r in op.results], call)

    def _while_node(self, op: WhileOp) -> None:
        builder = self.builder
        index, self.bodies = self.bodies, self.bodies + 2
        cond_body, body = self._nested(op.cond_region.block), self._nested(op.body_region.block)
        call = (f"{self.segment}.run_while({index}, {cond_body}, {body}, "
                f"[{', '.join(builder.locals(op.carried))}], [{', '.join(builder.locals(op.additional))}])")
        builder.unpack([builder.define(r) for r in op.results], call)


def lower_graph(builder: HostBuilder, op: GraphOp) -> None:
    """``results = segment(body, [operands])`` (see the module docstring)."""
    block = op.body.block
    binders, seen = [], set()
    for symbol, position, dim in symbol_binders([a.type for a in block.args]):
        if symbol not in seen:
            seen.add(symbol)
            binders.append((position, dim))
    bodies = 2 * sum(isinstance(inner, CondOp | WhileOp) for inner in op.walk())
    segment = graphs.GraphSegment(graphs.default_pools(), torch.device(builder.device), tuple(binders),
                                  frozenset(op.in_place_operands), bodies)
    lowering = _GraphLowering(builder, builder.bind(segment, FUNCTION))
    parameters = [builder.names.fresh(VALUE) for _ in block.args]
    with builder.function(parameters) as body:
        yielded = lowering.block(block, parameters, isolated=True)
        builder.emit(f"return [{', '.join(yielded)}]")
    call = f"{lowering.segment}({body}, [{', '.join(builder.locals(op.inputs))}])"
    builder.unpack([builder.define(r) for r in op.results], call)
