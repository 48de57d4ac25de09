"""The import methods of ``GraphImporter`` for PyTorch's higher-order ops, one per kind.

Each method reads the HOP call as the trace records it and builds the region
op of ``hopc.dialects.hop`` whose docstring states the same semantics:

    cond(pred, true_graph, false_graph, operands)            -> hop.cond
    while_loop(cond_graph, body_graph, carried, additional)  -> hop.while
    scan(combine_graph, init, xs, additional)                -> hop.scan
    map_impl(body_graph, xs, additional)                     -> hop.map
    associative_scan(combine_graph, xs, additional)          -> hop.associative_scan
    invoke_subgraph(subgraph, identifier, *operands)         -> hop.invoke_subgraph
    hopc_wrap(body, *operands)                               -> hop.wrap
    hopc_checkpoint(body, *operands)                         -> hop.checkpoint
    hopc_autograd_function(fwd, bwd, gradients, *operands)   -> hop.autograd_function
    flex_attention(q, k, v, score_graph, block_mask, ...)    -> hop.flex_attention

(``hopc_wrap`` and ``hopc_checkpoint`` stand for ``wrap`` and
``checkpoint``, Note [kept regions]; ``hopc_autograd_function`` for
``autograd_function_apply``, Note [kept autograd functions].) Each subgraph is imported by a nested
``GraphImporter`` into a block whose arguments have the types the op's
verifier expects; ``scan`` reverses by flipping its operands before and after
(``torch._higher_order_ops.scan``), so its ``reverse`` flag is never set here.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch.fx
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, Block, Region

from hopc.dialects import hop
from hopc.dialects.hop_interface import sliced_type
from hopc.fx_import.errors import unsupported
from hopc.fx_import.flex_attention_import import import_flex_attention


class RegionImports:
    """Mixin of ``GraphImporter``: the ``_import_<kind>`` methods for HOP calls."""

    HOP_METHODS = {
        "cond": "cond",
        "while_loop": "while",
        "scan": "scan",
        "map_impl": "map",
        "associative_scan": "associative_scan",
        "invoke_subgraph": "invoke_subgraph",
        "hopc_wrap": "wrap",
        "hopc_checkpoint": "checkpoint",
        "hopc_autograd_function": "autograd_function",
        "flex_attention": "flex_attention",
    }
    """``HigherOrderOperator.name()`` -> the suffix of its import method."""

    def _region(self, graph: torch.fx.Node, argument_types: Sequence[Attribute],
                user: torch.fx.Node) -> Region:
        """A region holding the subgraph ``graph`` names, with these block argument types."""
        module = self.modules.get(graph)
        if module is None:
            raise unsupported(user, f"{user.target.name()} with a body that is not a traced graph")
        block = Block(arg_types=argument_types)
        results = type(self)(self.imports, module, block).import_graph()
        block.add_op(hop.YieldOp(*results))
        return Region(block)

    def _types(self, values: Sequence) -> list[Attribute]:
        return [v.type for v in values]

    def _import_cond(self, node: torch.fx.Node) -> None:
        predicate, true_graph, false_graph, operands = node.args
        inputs = self.values_of(operands, node)
        types = self._types(inputs)
        self._define(node, hop.CondOp(self.value(predicate, node), inputs,
                                      self.result_types(node),
                                      self._region(true_graph, types, node),
                                      self._region(false_graph, types, node)), several=True)

    def _import_while(self, node: torch.fx.Node) -> None:
        cond_graph, body_graph, carried_operands, additional_operands = node.args[:4]
        carried = self.values_of(carried_operands, node)
        additional = self.values_of(additional_operands, node)
        if self.result_types(node) != self._types(carried):
            raise unsupported(node, "a while_loop whose carried values change type "
                                    "(shape or symbolic value) between iterations")
        types = self._types(carried) + self._types(additional)
        self._define(node, hop.WhileOp(carried, additional,
                                       self._region(cond_graph, types, node),
                                       self._region(body_graph, types, node)), several=True)

    def _import_scan(self, node: torch.fx.Node) -> None:
        combine_graph, init_operands, xs_operands, additional_operands = node.args
        init = self.values_of(init_operands, node)
        xs = self.values_of(xs_operands, node)
        additional = self.values_of(additional_operands, node)
        types = self._types(init) + _slices(xs) + self._types(additional)
        self._define(node, hop.ScanOp(operands=[init, xs, additional],
                                      result_types=[self.result_types(node)],
                                      regions=[self._region(combine_graph, types, node)]),
                     several=True)

    def _import_map(self, node: torch.fx.Node) -> None:
        body_graph, xs_operands, additional_operands = node.args
        xs = self.values_of(xs_operands, node)
        additional = self.values_of(additional_operands, node)
        types = _slices(xs) + self._types(additional)
        self._define(node, hop.MapOp(operands=[xs, additional],
                                     result_types=[self.result_types(node)],
                                     regions=[self._region(body_graph, types, node)]),
                     several=True)

    def _import_associative_scan(self, node: torch.fx.Node) -> None:
        """The combine body takes two slices of each ``xs`` (Note [associative scan semantics])."""
        combine_graph, xs_operands, additional_operands = node.args
        xs = self.values_of(xs_operands, node)
        additional = self.values_of(additional_operands, node)
        types = _slices(xs) * 2 + self._types(additional)
        self._define(node, hop.AssociativeScanOp(xs, additional, self._region(combine_graph, types, node)),
                     several=True)

    def _import_invoke_subgraph(self, node: torch.fx.Node) -> None:
        subgraph, _identifier, *operands = node.args
        inputs = self.values_of(operands, node)
        types = self._types(inputs)
        name = self.imports.shared_subgraph(self.modules.get(subgraph), types,
                                            lambda: self._region(subgraph, types, node))
        self._define(node, hop.InvokeSubgraphOp(properties={"callee": SymbolRefAttr(name)},
                                                operands=[inputs],
                                                result_types=[self.result_types(node)]),
                     several=True)

    def _import_wrap(self, node: torch.fx.Node) -> None:
        self._import_single_body(node, hop.WrapOp)

    def _import_checkpoint(self, node: torch.fx.Node) -> None:
        self._import_single_body(node, hop.CheckpointOp)

    def _import_autograd_function(self, node: torch.fx.Node) -> None:
        """Both bodies become shared subgraphs: the forward on the operands, the backward on
        one cotangent per output then the saved values, which are the call's results in order."""
        forward, backward, gradients, *operands = node.args
        inputs = self.values_of(operands, node)
        types, result_types = self._types(inputs), self.result_types(node)
        outputs, _saved = self.modules[forward].graph.output_node().args[0]
        forward_name = self.imports.shared_subgraph(self.modules[forward], types,
                                                    lambda: self._region(forward, types, node))
        backward_name = self.imports.shared_subgraph(self.modules[backward], result_types,
                                                     lambda: self._region(backward, result_types, node))
        self._define(node, hop.AutogradFunctionOp(
            forward_name, backward_name, inputs, result_types, len(outputs), gradients), several=True)

    def _import_flex_attention(self, node: torch.fx.Node) -> None:
        import_flex_attention(self, node)

    def _import_single_body(self, node: torch.fx.Node,
                            op_class: type[hop.WrapOp] | type[hop.CheckpointOp]) -> None:
        body, *operands = node.args
        inputs = self.values_of(operands, node)
        self._define(node, op_class(inputs, self.result_types(node),
                                    self._region(body, self._types(inputs), node)), several=True)


def _slices(xs: Sequence) -> list[Attribute]:
    """The types the body of a scan or map sees: one slice along dim 0 of each operand."""
    types = [sliced_type(x.type) for x in xs]
    assert None not in types
    return types
