"""Tensor constants made inside HOP bodies become operands of their HOPs.

Note [hoisted constants]
~~~~~~~~~~~~~~~~~~~~~~~~
A body may create a tensor from a literal (``x + torch.tensor([1., 2.])``);
ATen tracing records it as an attribute of the body's graph module
(``_tensor_constant0``). Region ops take every tensor they read as an
operand, so ``hoist_constants`` moves each such constant outwards, one HOP
level at a time, until it is an attribute of the entry graph (where it becomes
a ``hop.constant``): every subgraph of the HOP gets one trailing placeholder
per constant that any of them reads, in the same order, and the HOP call gets
the constants as trailing operands, in the argument that feeds trailing
placeholders, which the HOP's kind registers in ``TRAILING_ARGUMENTS``
(``hopc.fx_import.capture_rules``: ``cond``'s operands, ``while_loop``'s,
``scan``'s, ``map``'s and ``associative_scan``'s additional inputs, the
operands of the others). A subgraph shared by several calls
(``invoke_subgraph``) is changed once. A HOP whose kind registers no trailing
argument (a custom ``autograd.Function``, whose backward takes cotangents and
then saved values) with a constant made in a body is refused, located at the
HOP's line.
"""

from __future__ import annotations

import torch
import torch.fx

from hopc.fx_import.capture_rules import TRAILING_ARGUMENTS
from hopc.fx_import.errors import unsupported


def hoist_constants(graph_module: torch.fx.GraphModule) -> None:
    """Leaves tensor attributes only in ``graph_module`` itself (Note [hoisted constants])."""
    _hoist_from_hops(graph_module, {})


def _hoist_from_hops(graph_module: torch.fx.GraphModule,
                     taken: dict[int, list[torch.Tensor]]) -> None:
    changed = False
    for node in list(graph_module.graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.HigherOrderOperator):
            continue
        name = node.target.name()
        attributes = [getattr(graph_module, a.target) for a in node.args
                      if isinstance(a, torch.fx.Node) and a.op == "get_attr"]
        subgraphs = [a for a in attributes if isinstance(a, torch.fx.GraphModule)]
        trailing_argument_rule = TRAILING_ARGUMENTS.get(name)
        if trailing_argument_rule is None:
            if any(_holds_tensor_constant(subgraph) for subgraph in subgraphs):
                raise unsupported(node, f"a tensor constant made inside the '{name}' region "
                                        "(make it outside, or pass it in as an argument)")
            continue
        if not all(id(subgraph) in taken for subgraph in subgraphs):
            constants: dict[int, torch.Tensor] = {}
            for subgraph in subgraphs:
                _hoist_from_hops(subgraph, taken)
                constants.update((id(t), t) for t in _tensor_attributes(subgraph))
            for subgraph in subgraphs:
                taken[id(subgraph)] = list(constants.values())
                _take_as_placeholders(subgraph, taken[id(subgraph)])
        constants_taken = taken[id(subgraphs[0])] if subgraphs else []
        if constants_taken:
            _pass_as_operands(graph_module, node, constants_taken, trailing_argument_rule())
            changed = True
    if changed:
        graph_module.recompile()


def _holds_tensor_constant(graph_module: torch.fx.GraphModule) -> bool:
    """Whether ``graph_module`` or a subgraph it calls, at any depth, reads a tensor attribute."""
    for node in graph_module.graph.find_nodes(op="get_attr"):
        value = getattr(graph_module, node.target)
        if isinstance(value, torch.Tensor) or \
                isinstance(value, torch.fx.GraphModule) and _holds_tensor_constant(value):
            return True
    return False


def _tensor_attributes(graph_module: torch.fx.GraphModule) -> list[torch.Tensor]:
    tensors = []
    for node in graph_module.graph.find_nodes(op="get_attr"):
        value = getattr(graph_module, node.target)
        if isinstance(value, torch.Tensor):
            tensors.append(value)
    return tensors


def _take_as_placeholders(graph_module: torch.fx.GraphModule,
                          constants: list[torch.Tensor]) -> None:
    """Appends one placeholder per constant; the graph's reads of them use it."""
    if not constants:
        return
    graph = graph_module.graph
    first_operation = next(node for node in graph.nodes if node.op != "placeholder")
    by_id = {}
    for index, constant in enumerate(constants):
        with graph.inserting_before(first_operation):
            by_id[id(constant)] = graph.placeholder(f"hoisted_constant_{index}")
    for node in list(graph.find_nodes(op="get_attr")):
        value = getattr(graph_module, node.target)
        if isinstance(value, torch.Tensor):
            node.replace_all_uses_with(by_id[id(value)])
            graph.erase_node(node)
    graph_module.recompile()


def _pass_as_operands(graph_module: torch.fx.GraphModule, hop_node: torch.fx.Node,
                      constants: list[torch.Tensor], argument: int | None) -> None:
    """Reads each constant as an attribute before ``hop_node`` and appends it to its operands."""
    reads = []
    for constant in constants:
        name = _fresh_attribute_name(graph_module, "_hoisted_constant")
        graph_module.register_buffer(name, constant)
        with graph_module.graph.inserting_before(hop_node):
            reads.append(graph_module.graph.get_attr(name))
    args = list(hop_node.args)
    if argument is None:
        args.extend(reads)
    else:
        args[argument] = type(args[argument])([*args[argument], *reads])
    hop_node.args = tuple(args)


def _fresh_attribute_name(graph_module: torch.fx.GraphModule, prefix: str) -> str:
    index = 0
    while hasattr(graph_module, f"{prefix}{index}"):
        index += 1
    return f"{prefix}{index}"
