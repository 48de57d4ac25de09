"""Capturing ``invoke_subgraph(subgraph, identifier, *operands)`` as ``hop.invoke_subgraph``.

The body becomes a shared ``hop.subgraph`` (``ModuleImports.shared_subgraph``),
one per graph module and argument types, which every call names. A size the
body defines and returns only inside expressions (``[4*u0]``) is returned as
a ``!hop.symint`` too, and each call names it by the symbol its own result
types give it (Note [call result symbols] in
``hopc.dialects.hop_call_results``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch.fx
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute

from hopc.dialects import hop
from hopc.fx_import.capture_rules import EAGER_ENTRY_POINTS, HOP_IMPORTS, TRAILING_ARGUMENTS, EntryPoint
from hopc.fx_import.hops.shared import COMPILED_CALL, call_result_types, types_of, with_size_results
from hopc.ir.substitution import InconsistentBinding

if TYPE_CHECKING:
    from hopc.fx_import.importer import GraphImporter

_INVOKE_SUBGRAPH = importlib.import_module("torch._higher_order_ops.invoke_subgraph")
"""The module itself (``torch._higher_order_ops`` exports the HOP under its name)."""


@HOP_IMPORTS.register("invoke_subgraph")
def import_invoke_subgraph(importer: GraphImporter, node: torch.fx.Node) -> None:
    subgraph, _identifier, *operands = node.args
    inputs = importer.values_of(operands, node)
    types = types_of(inputs)
    name = importer.imports.shared_subgraph(
        importer.modules.get(subgraph), types,
        lambda: with_size_results(importer.region(subgraph, types, node)))
    result_types = _call_result_types(node, importer.imports.subgraph(name), types,
                                      importer.result_types(node))
    importer.define(node, hop.InvokeSubgraphOp(properties={"callee": SymbolRefAttr(name)},
                                               operands=[inputs], result_types=[result_types]),
                    several=True)


def _call_result_types(node: torch.fx.Node, callee: hop.SubgraphOp, operand_types: list[Attribute],
                       result_types: list[Attribute]) -> list[Attribute]:
    """``result_types`` (the node's), then one ``!hop.symint`` per size ``callee`` yields after
    them, named by this call (``call_result_types``)."""
    try:
        substitution = callee.substitution_for(operand_types)
    except InconsistentBinding:
        substitution = {}  # the verifier of the call names the conflict
    return call_result_types(node, "a nested_compile_region", callee.output_types, substitution,
                             result_types)


@TRAILING_ARGUMENTS.register("invoke_subgraph")
def invoke_subgraph_trailing_argument() -> None:
    """The operands, the variadic rest; a subgraph shared by several calls is changed once."""
    return None


@EAGER_ENTRY_POINTS.register("invoke_subgraph")
def invoke_subgraph_entry_points() -> Sequence[EntryPoint]:
    """An exported ``nested_compile_region`` compiles its call; otherwise it calls
    ``invoke_subgraph_placeholder``."""
    return (COMPILED_CALL, (_INVOKE_SUBGRAPH, "invoke_subgraph_placeholder"))
